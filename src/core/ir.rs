//! The typed IR: what the checker produces and the evaluator compiles.
//!
//! Every expression carries its concrete type (inside a generic function: a type mentioning
//! the function's declared type parameters, which the evaluator substitutes when it compiles an
//! instance). There are no names (locals are frame slots, globals are global slots), no
//! overloads (every primitive is a resolved `Prim` kernel), and no implicit conversions (a
//! widening is an explicit `Prim::Widen`). Syntax sugar is gone: `x.f`, `|>`, `$`, `#f`,
//! injections used as functions, `proj`, `aproj`, `ident` and primitives used as values all
//! became plain calls or functions.

use std::sync::Arc;

use crate::syntax::ast::FunKind;
use crate::syntax::span::Span;
use crate::types::ty::{IntTy, TyVar, Type};

/// A frame slot of the current function (or of the top level: see `Place::Global`).
pub type Slot = u32;
/// Index into the session's function table.
pub type FunId = u32;
/// Identifies a loop for `break`/`continue`, unique within one function body.
pub type LabelId = u32;

#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Type,
    pub span: Span,
}

#[derive(Clone, Debug)]
pub enum Const {
    Unit,
    /// Any integer type, `char`, or a compact code (u64 bit pattern), by `Expr::ty`.
    Int(i64),
    /// `double`, or `float` (already rounded to f32).
    Float(f64),
    Str(Arc<[u8]>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

/// Bitwise operators and shifts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BitOp {
    And,
    Or,
    Xor,
    Shl,
    Shr,
}

/// The unary functions of `float` and `double`; `Log` is also `ln`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MathFn {
    Sqrt,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Exp,
    Log,
    Log10,
    Ceil,
    Floor,
    Trunc,
    Abs,
}

/// The searches of C++'s `std::string`, Felix's `stl_find` family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StrSearch {
    /// The first occurrence of the needle at or after the position.
    Find,
    /// The last occurrence of the needle starting at or before the position.
    RFind,
    /// The first byte at or after the position that is (or is not) in the set.
    FirstOf(bool),
    /// The last byte at or before the position that is (or is not) in the set.
    LastOf(bool),
}

/// The character classes of C's `<ctype.h>` in the "C" locale.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CharClass {
    Upper,
    Lower,
    Alpha,
    Digit,
    Alnum,
    XDigit,
    Space,
    Blank,
    Cntrl,
    Print,
    Punct,
}

/// How an array is indexed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IndexMode {
    /// An integer expression (any integer type): the linear position in code order, checked
    /// `0 <= i < len` at run time (R0001).
    Linear,
    /// A value of exactly the array's index type: its code is the position; no check needed.
    Code,
}

/// The resolved kinds of `e :>> T`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoerceKind {
    /// Compact value to an integer type (`Expr::ty`): its code; R0005 if it does not fit.
    EncodeInt,
    /// Compact value to `natural`: its code.
    EncodeNatural,
    /// Compact value to `string`: its code in decimal.
    EncodeString,
    /// Integer (any type) to a compact type: decode; R0002 outside `0..size`.
    DecodeInt,
    /// `natural` to a compact type; R0002 outside `0..size`.
    DecodeNatural,
    /// `string` of decimal digits to a compact type; R0002 for anything else or out of range.
    DecodeString,
    /// Compact to compact of the same size: the code is kept (no-op).
    Reinterpret,
    /// Layout-identical reshape: same leaves in the same order. Zero copy from an
    /// array to an array; at most one copy otherwise.
    Reshape,
    /// Integer (>= 0) to natural; R0005 for a negative value.
    IntToNatural,
    /// Natural to an integer type; R0005 if it does not fit.
    NaturalToInt,
    /// Natural to its decimal string.
    NaturalToString,
    /// An opaque type's representation to the opaque type (`_make_K`) or back (`_repr_`): the
    /// value is stored as its representation, so this changes only the static type (no-op).
    Opaque,
}

/// The operations on distributed arrays that run on chunks. A distributed array is stored
/// as equal chunks of its linear index: process `r` of `p` owns the positions
/// `[r·n/p, (r+1)·n/p)` and computes only those (`eval::distributed`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DistOp {
    /// `map f a`: `f` applied to the owned elements.
    Map,
    /// `\sum a` (`true`) and `\prod a` (`false`): integers exactly; floating values by a fixed
    /// tree over fixed-size tiles of the linear index, the same on any number of processes.
    Reduce(bool),
    /// `load_npy f` into a distributed type: each process reads its chunk's bytes.
    LoadNpy,
    /// `save_npy (f, a)` of a distributed array: each process writes its chunk's bytes.
    SaveNpy,
    /// The first (`false`) or the end (`true`) of the positions this process owns of the
    /// number of positions given as the operand: the bounds of a loop over a distributed
    /// array's index that reads and stores it at the loop's position only.
    Owned(bool),
    /// After a loop that each process runs over its own positions: all processes agree on
    /// whether any failed in it, and stop if one did (`eval::distributed::agree`).
    Agree,
    /// `fold_left f init a` (and `fold`) with `f : T -> T -> T`: the tiled fold of `a` by `f`
    /// (`eval::distributed::tiles`), then `f init` of it; the same on any number of processes.
    Fold,
    /// A library function with a chunked kernel, on its operands followed by the call of the
    /// library function itself (run on one process for element types the kernel does not
    /// chunk, and for empty arrays).
    Library(ChunkedFn),
    /// `filter p a`: each process filters its chunk; the kept elements move to the owners of
    /// their positions in the result (an all-to-all exchange), in order.
    Filter,
    /// `transpose a`: each owned element moves to the owner of its position in the
    /// transpose (an all-to-all exchange).
    Transpose,
    /// `rev a`: each owned element moves to the owner of its mirror position (an all-to-all
    /// exchange).
    Rev,
    /// `sort a` of numbers: a sample sort (gathered samples choose splitters, one exchange
    /// to the owners of the key ranges, local sorts, a second exchange to the owners of the
    /// sorted positions); the single process's stable sort on any number of processes.
    Sort,
    /// The array operand with, on each process, the positions up to the second operand
    /// before its chunk and up to the third after it filled in from their owners: assigned
    /// to an array variable before a loop over its positions that reads it at constant
    /// offsets from the loop's position (a stencil's halo).
    Halo,
}

/// The library functions (written in Tessera, in the prelude) that run on chunks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChunkedFn {
    /// `minimum a` (`false`) and `maximum a` (`true`): each process's extreme, then the
    /// extreme of those in process order.
    Extreme(bool),
    /// `mean a`: the tiled sum over the length.
    Mean,
    /// `dot a b`: the products at the owned positions, summed as `\sum` sums.
    Dot,
    /// `map2 f a b`: `f` applied at the owned positions.
    Map2,
    /// `reduce f a`: the tiled fold of `a` by `f`.
    Reduce,
    /// `scan_left f init a` with `f : T -> T -> T`: the tiled scan of `a` by `f`, each running
    /// value combined with `f` onto `init` and the tiles before; the result is distributed.
    ScanLeft,
    /// `cumsum a` (`true`) and `cumprod a` (`false`): the tiled scan by `+` from zero (by `*`
    /// from one); the result is distributed.
    Cumulative(bool),
    /// `fold_right f a init` with `f : T -> T -> T`: the tiled fold of `a` by `f`, the tiles
    /// folded from their last elements and combined right to left, then `f` of it and `init`.
    FoldRight,
    /// `scan_right f a init` with `f : T -> T -> T`: the tiled scan of `a` by `f` from the last
    /// element, each running value combined with `f` onto the tiles after and `init`; the
    /// result is distributed.
    ScanRight,
    /// `rev_map f a`: `f` applied at the owned positions, then the reversal's exchange; the
    /// result is distributed.
    RevMap,
}

impl ChunkedFn {
    /// The chunked library function of a name.
    pub fn of_name(name: &str) -> Option<ChunkedFn> {
        Some(match name {
            "minimum" => ChunkedFn::Extreme(false),
            "maximum" => ChunkedFn::Extreme(true),
            "mean" => ChunkedFn::Mean,
            "dot" => ChunkedFn::Dot,
            "map2" | "zip_with" => ChunkedFn::Map2,
            "reduce" => ChunkedFn::Reduce,
            "scan_left" => ChunkedFn::ScanLeft,
            "cumsum" => ChunkedFn::Cumulative(true),
            "cumprod" => ChunkedFn::Cumulative(false),
            "fold_right" => ChunkedFn::FoldRight,
            "scan_right" => ChunkedFn::ScanRight,
            "rev_map" => ChunkedFn::RevMap,
            _ => return None,
        })
    }

    /// The number of operands (the call of the library function not counted).
    pub fn operands(self) -> usize {
        match self {
            ChunkedFn::Extreme(_) | ChunkedFn::Mean | ChunkedFn::Cumulative(_) => 1,
            ChunkedFn::Dot | ChunkedFn::Reduce | ChunkedFn::RevMap => 2,
            ChunkedFn::Map2 | ChunkedFn::ScanLeft | ChunkedFn::FoldRight | ChunkedFn::ScanRight => {
                3
            }
        }
    }

    /// For a fold or scan by a function and an initial value, the positions of the initial
    /// value's operand and of the array's: the initial value is an element, as the results of
    /// tiles are combined with it.
    pub fn accumulator(self) -> Option<(usize, usize)> {
        match self {
            ChunkedFn::ScanLeft => Some((1, 2)),
            ChunkedFn::FoldRight | ChunkedFn::ScanRight => Some((2, 1)),
            _ => None,
        }
    }

    /// Is the first operand the function applied to the elements?
    pub fn takes_function(self) -> bool {
        matches!(
            self,
            ChunkedFn::Map2
                | ChunkedFn::Reduce
                | ChunkedFn::ScanLeft
                | ChunkedFn::FoldRight
                | ChunkedFn::ScanRight
                | ChunkedFn::RevMap
        )
    }

    /// Is the result an array distributed as the operands are?
    pub fn keeps_distribution(self) -> bool {
        matches!(
            self,
            ChunkedFn::Map2
                | ChunkedFn::ScanLeft
                | ChunkedFn::Cumulative(_)
                | ChunkedFn::ScanRight
                | ChunkedFn::RevMap
        )
    }
}

/// The kernels of `varray[T]` (`eval::compile::varray`): the elements are one shared buffer,
/// read and written in place, appended in amortised O(1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VarrayOp {
    /// args (the bound, a `size`): an empty varray.
    New,
    /// args (the varray): its length, a `size`.
    Len,
    /// args (the varray): its bound, a `size`.
    MaxLen,
    /// args (the varray, the position, of any integer type): the element; a position
    /// outside `0 ..< len v` is R0001.
    Get,
    /// args (the varray, the position, the value): the element replaced (R0001 as `Get`).
    Set,
    /// args (the varray, the value): appended; past the bound R0009.
    Push,
    /// args (the varray): its last element removed; of an empty varray R0009.
    Pop,
    /// args (the varray): its elements as an array of the result type (of a run-time size).
    ToArray,
}

/// A primitive operation with its kernel resolved by the checker. Operand types are the
/// `ty` of the argument expressions; the result type is the `ty` of the `Prim` expression.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Prim {
    /// Checked integer arithmetic in the given type: R0003 on overflow, R0004 on `/`, `%` by
    /// zero; `/` truncates toward zero and `%` has the sign of the dividend (C).
    IntArith(ArithOp, IntTy),
    /// IEEE arithmetic; `single` = float (round each result to f32).
    FloatArith(ArithOp, bool),
    /// natural arithmetic; a negative result of `-` is R0003, division by zero R0004.
    NatArith(ArithOp),
    /// Checked negation (R0003 for the minimum, and for any non-zero unsigned value).
    IntNeg(IntTy),
    FloatNeg,
    /// Comparison of two values of the same type (args[0].ty): numbers numerically (unsigned
    /// types unsigned), strings bytewise, compact values by code, tuples and arrays
    /// lexicographically, sums by tag then argument, structs field by field.
    Compare(CmpOp),
    Not,
    /// string + string
    StrConcat,
    /// string * n (n of an integer type; n <= 0 gives "")
    StrRepeat,
    /// `s.[i]`: a char; negative `i` counts from the end; outside `-len .. len-1` is R0001.
    StrIndex,
    /// `s.[i to j]` with the given bounds present (args follow in order): bytes `i` to `j-1`,
    /// negative bounds count from the end, bounds clamped.
    StrSlice {
        from: bool,
        to: bool,
    },
    /// Byte length of a string, a `size`.
    StrLen,
    ToUpper,
    /// `str`, `repr`, `_strr` of a value of type args[0].ty: a string.
    Str,
    Repr,
    Strr,
    /// Write `str` of the argument (no newline, with newline) to the output; result unit.
    Print,
    Println,
    /// Write a newline.
    Endl,
    /// `caseno v`: the summand index of a sum, unitsum, bool or compact sum value, an int.
    Caseno,
    /// `len a` for an array: the element count, a `size`.
    Len,
    /// Explicit scalar conversion from args[0].ty to the result type: between
    /// integer types (R0005 if the value does not fit), integer <-> double/float (truncation
    /// toward zero; R0005 for NaN or out of range), string -> integer (sign and leading
    /// digits, 0 when none; R0005 out of range), `char` -> integer.
    Convert,
    /// An implicit integer widening (the value unchanged).
    Widen,
    /// A record literal written out of sorted field order: the operands are the field
    /// values in source order (evaluated in that order); operand `k` is field `order[k]` of
    /// the result record.
    Permute(std::sync::Arc<[u32]>),
    /// A reshape `Coerce` (the operand) between types whose element counts depend on type
    /// variables and may differ (`double ^ n :>> double ^ (m \* 3)`), with the two types as
    /// the checker saw them: once the variables have values (`core::subst`) it becomes the
    /// reshape itself or a `ShapeFault` whose message names the variables. The identity.
    CheckedReshape(std::sync::Arc<(crate::types::Type, crate::types::Type)>),
    /// A reshape whose element counts turned out different once its run-time sizes or type
    /// arguments were known (`core::subst`): the operand is evaluated, then R0016 with this
    /// message.
    ShapeFault(std::sync::Arc<str>),
    /// Record subtype coercion of an argument: the operand's type is a subtype of
    /// the result type; the value is copied without the fields the result type lacks
    /// (through tuples, arrays and records). Also a struct built from a record whose fields
    /// are exactly the struct's: the fields in declaration order.
    Upcast,
    /// `map f a`: args (f, a); result indexed by a's index type.
    Map,
    /// `filter p a`: args (p, a); the elements for which `p` holds, in code order, as an
    /// array over a fresh run-time size.
    Filter,
    /// `concat (a, b)`: the elements of `a`, then those of `b` (in code order), as an array
    /// over a fresh run-time size.
    Append,
    /// `fold_left f init a` (args in that order); f curried `U -> T -> U`.
    FoldLeft,
    /// `rev a`: reversed in code order, same type.
    Rev,
    /// `\sum a`: left fold of `+` from zero (element type: an integer type, double, float
    /// or natural, per `Expr::ty`).
    Sum,
    /// `\prod a`: left fold of `*` from one.
    Prod,
    /// `join a b` / `a + b` for arrays over unitsums: concatenation.
    Concat,
    /// `transpose a`: `T ^ M ^ N` -> `T ^ N ^ M`, or `T ^ (A \* B)` -> `T ^ (B \* A)`.
    Transpose,
    /// `assert c;`: R0009 when the bool is false; result unit.
    Assert,
    /// `a \& b`, `a \| b`, `a \^ b` (unsigned types), `a << n`, `a >> n` (any integer
    /// type) in the given type: shifts check the count (R0010) and a signed `<<`
    /// its result (R0003); unsigned results wrap.
    IntBit(BitOp, IntTy),
    /// `~a` on an unsigned type: the complement within its width.
    IntCompl(IntTy),
    /// A unary function of `float` (`single`) or `double`.
    FloatFn(MathFn, bool),
    /// `atan2 (y, x)`: args (y, x).
    Atan2(bool),
    /// `pow (x, y)` with a floating exponent.
    Pow(bool),
    /// `pow (x, n)` with an `int` exponent.
    PowInt(bool),
    /// `abs x` on a signed integer type: R0003 on the minimum value.
    IntAbs(IntTy),
    /// `sgn x` on a signed integer type: -1, 0 or 1, an `int`.
    IntSgn(IntTy),
    /// `min (x, y)`, `max (x, y)` on any ordered type (args[0].ty), by `<` as in C++:
    /// `min` is `if x < y then x else y`, `max` is `if x < y then y else x`.
    Min,
    Max,
    /// `ord c`: the byte of a char as a signed value, an `int`.
    Ord,
    /// `string c`: the one-byte string.
    CharToStr,
    /// `toupper c`, `tolower c` on a char (`true` for upper): ASCII letters only.
    CharCase(bool),
    /// `tolower s` on a string (`toupper` is `ToUpper`).
    ToLower,
    /// `isupper c` … `ispunct c`.
    CharIs(CharClass),
    /// `strip`, `lstrip`, `rstrip`: args (s) with the default set of white space,
    /// or (s, cs) when `set`.
    Strip {
        left: bool,
        right: bool,
        set: bool,
    },
    /// `startswith s e`, `endswith s e`: args (s, e), `e` a string or a char (args[1].ty).
    StartsWith,
    EndsWith,
    /// `stl_find (s, e)`, `stl_rfind`, `stl_find_first_of`, …: args (s, e), or (s, e, pos) when
    /// `from`; `e` a string or a char (args[1].ty). The position found, or -1.
    StrSearch {
        how: StrSearch,
        from: bool,
    },
    /// `c \in s`: args (c, s); does the byte occur in the string?
    StrHasChar,
    /// A format string `f"…"` applied to its argument: args (the text, a string
    /// constant the checker has validated with `core::printf`; the tuple of the conversions'
    /// values, one value for one conversion, unit for none).
    Format,
    /// `mem p a`: args (p, a), does an element satisfy `p : T -> bool`?
    Mem,
    /// `mem r a e`: args (r, a, e), does an element `v` satisfy `r (v, e)`?
    MemRel,
    /// `e \in a`: args (e, a), is an element `== e` (the comparison of args[0].ty)?
    ArrayHas,
    /// `sort a` (args (a), by `<`) and `sort cmp a` (args (cmp, a)): a stable sort keeping
    /// the index type.
    Sort,
    SortBy,
    /// `subarray[F, L] a`: args (a, F as a `size` constant); the elements from linear
    /// position F, as many as the result's index size.
    Subarray,
    /// `x.(i..<j)` of an array: args (a, i, j), any integer types; the elements from linear
    /// position `i` to `j` (excluded), both clamped to the array, as an array of a run-time
    /// size (the result's index).
    Slice,
    /// Write `str` of args[1] to the stream args[0] (an `ofile`), with a newline when `true`
    /// (`fprint`, `fprintln`).
    FWrite(bool),
    /// `endl f`: a newline on the stream args[0].
    FEndl,
    /// An operation on the program's world: its arguments, environment, files, exit status,
    /// random numbers and clock (the session's `eval::world::World`).
    World(WorldOp),
    /// `parse_int s` (`false`) and `parse_double s` (`true`): the whole string read as a
    /// number, R0014 naming the text and the first offending byte otherwise.
    Parse(bool),
    /// `load_npy f`: args (the path); the array of the result type read from a `.npy` file.
    LoadNpy,
    /// An operation on a distributed array that runs on each process's chunk (the checker
    /// chooses it where an operand or the result is `distributed`; see `DistOp`).
    Dist(DistOp),
    /// `collect a`: args (the array); a distributed array gathered whole to every process.
    Collect,
    /// `save_npy (f, a)`: args (the path, the array); `a` written as a `.npy` file.
    SaveNpy,
    /// `load_npz (f, name)`: args (the path, the member's name); the member `name.npy` of
    /// the `.npz` archive `f`, read as `LoadNpy` reads a file.
    LoadNpz,
    /// `save_npz (f, name, a)`: args (the path, the member's name, the array); the archive
    /// `f` with its member `name.npy` added or replaced.
    SaveNpz,
    /// `save_svg (f, a)` (`false`) and `save_png (f, a)` (`true`): args (the path, the array);
    /// a line chart or heatmap of `a` (or, for `save_png`, the `uint8` image `a`) written to `f`.
    SavePicture(bool),
    /// `load_csv f` (`false`; args (the path)) and `load_csv_with (f, options)` (`true`;
    /// args (the path, the options record)): the CSV file read as the result type, a matrix
    /// of numbers or an array of records or structs whose fields name the header's columns.
    LoadCsv(bool),
    /// `save_csv (f, a)` (`false`; args (the path, the array)) and `save_csv_with (f,
    /// options, a)` (`true`; args (the path, the options record, the array)).
    SaveCsv(bool),
    /// `lines s`: args (the string); its lines without their line ends, an array of a
    /// run-time size.
    Lines,
    /// `split (s, c)`: args (the string, the separator); the pieces between separators.
    Split,
    /// `_random_uniform seed` (`false`) and `_random_normal seed` (`true`): args (the seed);
    /// the array of doubles of the result type whose element k is the counter-based
    /// generator's value for (seed, k), uniform in [0, 1) or standard normal.
    RandomFill(bool),
    /// `Shaped`: args (a loader's application, `LoadNpy`, `LoadNpz` or `LoadCsv`, whose
    /// result has several run-time sizes); the loaded array with its dimensions, `(a, dims)`
    /// of type `T ^ N * size ^ K`, outermost first, as the file gave them. The checker reads
    /// the sizes from `dims` (`check::sizes`).
    Shaped,
    /// An operation on a varray (`VarrayOp`); a darray's operations are those of its varray.
    Varray(VarrayOp),
    /// A binary operator whose operand types were both still being inferred (results of
    /// recursive calls). Only exists inside the checker: its final pass replaces it by
    /// the kernel the solved types select, so the evaluator never sees it.
    Unresolved(crate::syntax::ast::BinOp),
}

impl Prim {
    /// Does it read an array from a data file (its sizes the file's)?
    pub fn is_loader(&self) -> bool {
        matches!(self, Prim::LoadNpy | Prim::LoadNpz | Prim::LoadCsv(_))
    }
}

/// The operations of `Prim::World`, each with its operands (a `unit` operand for those
/// applied to `()`). A file handle (`ifile`, `ofile`) is an `int` naming an entry of the
/// world's file table: 0, 1 and 2 are the standard streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum WorldOp {
    /// `System::argc`: the number of arguments, the program's path included.
    Argc,
    /// `System::argv i`: argument `i` (0 is the program), `""` out of range.
    Argv,
    /// `Env::getenv name`: the variable's value, `""` when it is not set.
    Getenv,
    /// `System::exit code`: stop the program with that exit status.
    Exit,
    /// `cstdin`, `cstdout`, `cstderr`: the standard stream with this handle.
    Stream(u8),
    /// `fopen_input`, `fopen_output`, `fopen_append`: a handle, invalid when the file cannot
    /// be opened.
    Open(OpenMode),
    /// `valid f`: was the file opened?
    Valid,
    /// `fclose f`.
    Close,
    /// `fflush f`.
    Flush,
    /// `readln f`: the next line with its newline, `""` at the end.
    Readln,
    /// `load f` of an open input file: the rest of it.
    LoadRest,
    /// `load name`: the whole file.
    Load,
    /// `save (name, s)`: the file's whole content.
    Save,
    /// `write (f, s)` and `writeln (f, s)` (`true`: with a newline).
    Write(bool),
    /// `rand ()`: the next number of the session's generator, 0 … 2147483647.
    Rand,
    /// `srand n`, `rand_seed n`: restart the generator from seed `n`.
    Seed,
    /// `rand_int (lo, hi)`: uniform in `lo ..< hi`.
    RandInt,
    /// `rand_double ()`: uniform in [0, 1).
    RandDouble,
    /// `time ()`: seconds since 1970-01-01 UTC.
    Time,
}

/// How `Open` opens its file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpenMode {
    Input,
    Output,
    Append,
}

#[derive(Clone, Debug)]
pub enum ExprKind {
    Const(Const),
    /// The zero of `ty`: 0, 0.0, `""`, `false`, code 0, componentwise for tuples,
    /// structs and arrays (an array of N zeros, allocated lazily where possible). The checker
    /// only emits it for types that have a zero.
    Zero,
    /// A local slot holding the value directly.
    Local(Slot),
    /// The value of a local slot that nothing reads again before it is assigned (made by
    /// passes that know it, such as `core::tailcall`): moved out, the slot left holding
    /// `unit`, so a boxed value changes hands without a copy.
    Take(Slot),
    /// A local slot holding a `Value::Cell` (the variable is captured by an inner function).
    LocalCell(Slot),
    /// A global slot (top-level variables, REPL definitions).
    Global(Slot),
    /// The value captured at position `i` of the current closure (a copied value).
    Capture(u32),
    /// The cell captured at position `i` of the current closure: read its content.
    CaptureCell(u32),
    /// A function value: the function `fun` instantiated at `type_args` (one per type
    /// parameter of the function), with its captures taken from the current frame as the
    /// function's `captures` list says.
    MakeFun {
        fun: FunId,
        type_args: Vec<Type>,
    },
    /// A function value like `MakeFun`, with its captures taken from the current frame as
    /// `captures` says instead of the function's own list (made by the inlining pass,
    /// `core::inline`, when it moves the code creating a closure into another frame).
    Closure {
        fun: FunId,
        type_args: Vec<Type>,
        captures: Arc<[Capture]>,
    },
    /// Curried application: `func` applied to each of `args` in turn (at least one). The
    /// evaluator may call directly when `func` expects exactly that many groups.
    Call {
        func: Box<Expr>,
        args: Vec<Expr>,
    },
    Prim(Prim, Vec<Expr>),
    /// A plain tuple or a struct (`ty` says which): components in order.
    Tuple(Vec<Expr>),
    /// An array of the given elements in code order (`ty` is `T ^ I`, `size(I)` elements).
    Array(Vec<Expr>),
    /// A compact tuple `a \, b \, c`: the mixed-radix code from the component codes (`ty` is
    /// a compact product or compact array).
    CTuple(Vec<Expr>),
    /// Component `index` of a tuple or struct value.
    Field(Box<Expr>, u32),
    /// Component `index` of a compact product value: `(code / weight) % radix`.
    CField(Box<Expr>, u32),
    /// Element of an array.
    Index {
        array: Box<Expr>,
        index: Box<Expr>,
        mode: IndexMode,
    },
    /// A plain sum or variant value: summand/constructor `tag` with its argument (`Unit` for a
    /// constant constructor or a unit summand).
    Inject {
        tag: u32,
        arg: Box<Expr>,
    },
    /// A compact sum value: summand `tag` of `ty`, with the argument's code added to the
    /// summand's offset.
    CInject {
        tag: u32,
        arg: Box<Expr>,
    },
    /// `Typing::memcount[T]`: the size of T as a `size`, or a `natural` (per `Expr::ty`).
    TypeSize(Type),
    Coerce(CoerceKind, Box<Expr>),
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    /// Short-circuit `and` / `or`.
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    /// Patterns tried in order; no match is R0006.
    Match(Box<Expr>, Vec<Arm<Expr>>),
    /// A pointer (`ty`) to the variable `place` of type `root_ty`, or to the
    /// component of it that `path` leads to. A `Local` place is never addressed (the checker
    /// makes addressed locals cells).
    AddrOf {
        place: Place,
        root_ty: Type,
        path: Vec<PathStep>,
    },
    /// The pointer `ty` to the component that `path` leads to inside the object `pointer`
    /// points at; the path's first container is `pointer`'s target type (the
    /// component type `C` of a `_pclt<D, C>`).
    PtrProject {
        pointer: Box<Expr>,
        path: Vec<PathStep>,
    },
    /// `*p`: the current value of the object.
    Deref(Box<Expr>),
    /// `C_hack::cast[&U] p`: a pointer to the same object seen with type `U` (the
    /// target of `ty`), layout-identical to the operand's target.
    PtrCast(Box<Expr>),
    /// A function body inlined at its call site, or a library call lowered to a loop (made by
    /// the inlining pass, `core::inline`, after validation; the checker never emits it): see
    /// `Inlined`.
    Inlined(Box<Inlined>),
    /// `map` whose function was inlined: the array of `body` evaluated with the local `var`
    /// bound to each element of `array`, in code order (made by the inliner only). When
    /// `filter`, `body` is a boolean and the array is of the elements for which it holds
    /// (`filter` whose predicate was inlined).
    MapLoop {
        var: Slot,
        array: Box<Expr>,
        body: Box<Expr>,
        filter: bool,
    },
}

/// The function an inlined body comes from: its name and the evaluator's number of the unit
/// that defined it (whose source holds the body's spans).
#[derive(Clone, Debug)]
pub struct InlinedFrame {
    pub name: Arc<str>,
    pub unit: u32,
}

/// Code inlined into the current frame: `stmts` run, then the value is `result`, or, when
/// `result` is `None`, the value a `Return` among `stmts` gives (`()` when none runs). Slots,
/// labels and captures were relocated into the enclosing function's numbering.
#[derive(Clone, Debug)]
pub struct Inlined {
    /// The function whose body this is, for the call stack of runtime errors raised inside
    /// it, or `None` for a library call lowered to a loop.
    pub frame: Option<InlinedFrame>,
    /// The span of the call.
    pub call: Span,
    pub stmts: Vec<Stmt>,
    pub result: Option<Expr>,
}

/// A pattern, typed by the value it matches.
#[derive(Clone, Debug)]
pub struct Pattern {
    pub kind: PatternKind,
    pub ty: Type,
    pub span: Span,
}

impl Pattern {
    /// The places the pattern binds, each with the (sub)pattern binding it, whose type is
    /// the place's.
    pub fn bindings(&self) -> Vec<(Place, &Pattern)> {
        let mut out = Vec::new();
        let mut stack = vec![self];
        while let Some(p) = stack.pop() {
            match &p.kind {
                PatternKind::Bind(place) => out.push((*place, p)),
                PatternKind::As(inner, place) => {
                    out.push((*place, p));
                    stack.push(inner);
                }
                PatternKind::Tuple(parts) => stack.extend(parts.iter()),
                PatternKind::Inject { arg: Some(a), .. }
                | PatternKind::CInject { arg: Some(a), .. } => stack.push(a),
                _ => {}
            }
        }
        out
    }
}

#[derive(Clone, Debug)]
pub enum PatternKind {
    Wildcard,
    /// Bind the value to a variable.
    Bind(Place),
    /// Equal to a constant (integers, codes, strings, bools), compared as `Prim::Compare(Eq)`.
    Const(Const),
    /// Between two constants, both included (`1 .. 10`).
    Range(Const, Const),
    /// Components of a tuple, struct, or array over a unitsum (`ty` says which).
    Tuple(Vec<Pattern>),
    /// A plain sum or variant with this tag; the argument pattern (if any) matches its
    /// argument.
    Inject {
        tag: u32,
        arg: Option<Box<Pattern>>,
    },
    /// A compact sum value in summand `tag`; the argument pattern matches `code - offset`.
    CInject {
        tag: u32,
        arg: Option<Box<Pattern>>,
    },
    /// `p as x`: the value matches the pattern and is also bound to the place.
    As(Box<Pattern>, Place),
}

#[derive(Clone, Debug)]
pub struct Arm<B> {
    /// Alternatives: the arm is taken when one matches (they bind the same places).
    pub patterns: Vec<Pattern>,
    pub guard: Option<Expr>,
    pub body: B,
}

/// A variable that can be assigned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    Local(Slot),
    LocalCell(Slot),
    Global(Slot),
    CaptureCell(u32),
}

/// One step of a store path `&x.i.j <- v`.
#[derive(Clone, Debug)]
pub enum PathStep {
    /// Component of a tuple or struct.
    Field(u32),
    /// Element of an array.
    Index(Expr, IndexMode),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RangeKind {
    /// `for i in a ..< b`: while i < b { body; i += 1 }.
    Exclusive,
    /// `for i in a .. b` / `upto`: stops at b without stepping past it (i ends as b).
    Inclusive,
    /// `for i in b downto a`: stops at a without stepping past it.
    Downto,
}

#[derive(Clone, Debug)]
pub enum Stmt {
    /// Evaluate and discard (a procedure call, a `void` expression).
    Expr(Expr),
    /// Initialise or assign a variable.
    Assign(Place, Expr),
    /// Store into a component of a variable (`&x.i <- v`, `set (&a, i, v)`); `ty` of the
    /// place is `root_ty`. Copy-on-write.
    Store {
        place: Place,
        root_ty: Type,
        path: Vec<PathStep>,
        value: Expr,
    },
    /// `p <- v;`: store into the object a pointer points at.
    StoreAt {
        pointer: Expr,
        value: Expr,
    },
    If(Expr, Vec<Stmt>, Vec<Stmt>),
    /// `while` (or `until` when `until` is set: runs while the condition is false).
    While {
        label: LabelId,
        cond: Expr,
        until: bool,
        body: Vec<Stmt>,
    },
    /// `repeat`: until a `break`.
    Loop {
        label: LabelId,
        body: Vec<Stmt>,
    },
    /// Numeric loops. The variable has integer type `var_ty`; `to` is re-evaluated at
    /// every test.
    ForRange {
        label: LabelId,
        var: Place,
        var_ty: IntTy,
        from: Expr,
        to: Expr,
        kind: RangeKind,
        body: Vec<Stmt>,
    },
    /// `for i in ..[T]`: the variable takes every value of the compact type `ty` in code order.
    ForCodes {
        label: LabelId,
        var: Place,
        ty: Type,
        body: Vec<Stmt>,
    },
    /// `for v in a`: every element in code order.
    ForArray {
        label: LabelId,
        var: Place,
        array: Expr,
        body: Vec<Stmt>,
    },
    Break(LabelId),
    Continue(LabelId),
    Return(Option<Expr>),
    Match(Expr, Vec<Arm<Vec<Stmt>>>),
    Block(Vec<Stmt>),
    /// Statements whose types mention run-time sizes: each size variable (a type variable of
    /// kind UNITSUM) stands for the value of its expression, read when the statement starts.
    /// The evaluator substitutes the values and runs the body compiled for them, so the body
    /// runs as code over static types (compiled once per distinct sizes).
    Specialise {
        sizes: Vec<(crate::types::ty::TyVar, Expr)>,
        body: Vec<Stmt>,
        span: Span,
    },
}

impl Stmt {
    /// The label of a loop statement (`while`, `loop`, every `for`); `None` for any other.
    pub fn loop_label(&self) -> Option<LabelId> {
        match self {
            Stmt::While { label, .. }
            | Stmt::Loop { label, .. }
            | Stmt::ForRange { label, .. }
            | Stmt::ForCodes { label, .. }
            | Stmt::ForArray { label, .. } => Some(*label),
            _ => None,
        }
    }
}

/// How a closure's captured value `i` is taken from the frame creating it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Capture {
    /// Copy the value of a local slot (parameters: immutable).
    Slot(Slot),
    /// Share the cell held in a local slot.
    Cell(Slot),
    /// Copy the creator's own capture `i` (a value or a cell, shared as is).
    Outer(u32),
}

/// A function, procedure, generator or lambda.
#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub kind: FunKind,
    pub span: Span,
    /// Type parameters: the function's own, preceded by those of enclosing generic
    /// functions whose types it mentions. `MakeFun::type_args` has one type for each.
    pub type_params: Vec<TyVar>,
    /// How many of the last `type_params` are run-time sizes of enclosing code that the
    /// function's types mention (`check::sizes`): substituted by `Type::subst_sizes`.
    pub size_params: usize,
    /// One pattern per curried parameter group (a `Bind`, a `Tuple` of binds, or a `Wildcard`
    /// for `()`); the group's type is the pattern's `ty`.
    pub params: Vec<Pattern>,
    pub ret: Type,
    /// Frame size (parameters and all locals).
    pub n_slots: u32,
    /// Slots that hold cells: each gets a fresh `Value::Cell` (holding `Unit`) on entry,
    /// before parameters are bound. A parameter is never a cell slot.
    pub cell_slots: Vec<Slot>,
    /// What a closure of this function captures from the frame that creates it.
    pub captures: Vec<Capture>,
    /// The body; an expression body is a single `Return`. A procedure falls off its end.
    pub body: Vec<Stmt>,
    /// Pure (safe to run in parallel): no output, no proc/gen calls, no assignment outside its own
    /// locals, transitively.
    pub pure_: bool,
}

/// What the checker hands to the evaluator for one program or one REPL chunk.
#[derive(Clone, Debug, Default)]
pub struct Unit {
    /// Functions defined by this unit (ids continue the session's table).
    pub functions: Vec<(FunId, Arc<Function>)>,
    /// The number of global slots after this unit (globals only grow).
    pub n_globals: u32,
    /// Top-level statements, run in order.
    pub body: Vec<Stmt>,
    /// For a REPL expression chunk: the expression whose value is printed.
    pub result: Option<Expr>,
    /// The global variables this unit declares, for the evaluator's use-before-initialisation
    /// error (R0011), which names the variable and its definition.
    pub globals: Vec<GlobalDef>,
    /// This unit is the library (the prelude).
    pub library: bool,
    /// The functions of `functions` that are the library's: library functions first used by
    /// this unit (and the functions nested in them). Their spans are in the library's source.
    pub library_functions: Vec<FunId>,
}

/// A global variable declared by a unit: its slot, name and the span of its name.
#[derive(Clone, Debug, PartialEq)]
pub struct GlobalDef {
    pub slot: Slot,
    pub name: String,
    pub span: Span,
    /// The evaluator's number of the unit that defines it (whose source holds `span`): set
    /// when the machine defines the unit, 0 before.
    pub unit: u32,
    /// Declared by `var` (assignable); a `val` is written only by its declaration.
    pub mutable: bool,
}
