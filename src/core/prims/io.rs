//! The functions of the primitive table that reach the program's world: its arguments and
//! environment, its exit status, files, checked number parsing, random numbers and the clock.
//! Every kernel is a `Prim::World` operation (`eval::world`), except the parsers.

use super::*;
use crate::core::ir::{OpenMode, WorldOp};

/// The entry of a world operation: its kernel, with `operands` operands.
macro_rules! world {
    ($op:expr, $operands:expr) => {
        (
            Typing::Scheme(|_, _| Some(Prim::World($op))),
            (|p: &Prim| (*p == Prim::World($op)).then_some($operands))
                as fn(&Prim) -> Option<usize>,
        )
    };
}

const ARGC: (Typing, fn(&Prim) -> Option<usize>) = world!(WorldOp::Argc, 1);
const ARGV: (Typing, fn(&Prim) -> Option<usize>) = world!(WorldOp::Argv, 1);
const GETENV: (Typing, fn(&Prim) -> Option<usize>) = world!(WorldOp::Getenv, 1);
const EXIT: (Typing, fn(&Prim) -> Option<usize>) = world!(WorldOp::Exit, 1);
const STDIN: (Typing, fn(&Prim) -> Option<usize>) = world!(WorldOp::Stream(0), 1);
const STDOUT: (Typing, fn(&Prim) -> Option<usize>) = world!(WorldOp::Stream(1), 1);
const STDERR: (Typing, fn(&Prim) -> Option<usize>) = world!(WorldOp::Stream(2), 1);
const OPEN_INPUT: (Typing, fn(&Prim) -> Option<usize>) = world!(WorldOp::Open(OpenMode::Input), 1);
const OPEN_OUTPUT: (Typing, fn(&Prim) -> Option<usize>) =
    world!(WorldOp::Open(OpenMode::Output), 1);
const OPEN_APPEND: (Typing, fn(&Prim) -> Option<usize>) =
    world!(WorldOp::Open(OpenMode::Append), 1);
const VALID: (Typing, fn(&Prim) -> Option<usize>) = world!(WorldOp::Valid, 1);
const CLOSE: (Typing, fn(&Prim) -> Option<usize>) = world!(WorldOp::Close, 1);
const FLUSH: (Typing, fn(&Prim) -> Option<usize>) = world!(WorldOp::Flush, 1);
const READLN: (Typing, fn(&Prim) -> Option<usize>) = world!(WorldOp::Readln, 1);
const SAVE: (Typing, fn(&Prim) -> Option<usize>) = world!(WorldOp::Save, 2);
const WRITE: (Typing, fn(&Prim) -> Option<usize>) = world!(WorldOp::Write(false), 2);
const WRITELN: (Typing, fn(&Prim) -> Option<usize>) = world!(WorldOp::Write(true), 2);
const RAND: (Typing, fn(&Prim) -> Option<usize>) = world!(WorldOp::Rand, 1);
const SEED: (Typing, fn(&Prim) -> Option<usize>) = world!(WorldOp::Seed, 1);
const RAND_INT: (Typing, fn(&Prim) -> Option<usize>) = world!(WorldOp::RandInt, 2);
const RAND_DOUBLE: (Typing, fn(&Prim) -> Option<usize>) = world!(WorldOp::RandDouble, 1);
const TIME: (Typing, fn(&Prim) -> Option<usize>) = world!(WorldOp::Time, 1);

/// The world's fields of an entry: it has an effect (never run in parallel, never moved or
/// dropped by the inliner), and its typing and kernels.
const IO: PrimDef = PrimDef {
    effect: true,
    ..FUNCTION
};

pub(super) const IO_FUNCTIONS: &[PrimDef] = &[
    PrimDef {
        name: "System::argc",
        schemes: &["unit -> int"],
        form: "System::argc",
        doc: "the number of the program's command-line arguments, its own path included \
            (`tessera prog.flx a b` gives 3)",
        example: "println$ System::argc >= 0;",
        typing: ARGC.0,
        kernels: ARGC.1,
        ..IO
    },
    PrimDef {
        name: "System::argv",
        schemes: &["int -> string"],
        form: "System::argv i",
        doc: "command-line argument i: 0 is the program's path, 1 the first argument after it; \
            \"\" when i is out of range (Felix)",
        example: "println$ System::argv 1000 == \"\";",
        typing: ARGV.0,
        kernels: ARGV.1,
        ..IO
    },
    PrimDef {
        name: "Env::getenv",
        schemes: &["string -> string"],
        form: "Env::getenv name",
        doc: "the value of the environment variable name, \"\" when it is not set (Felix)",
        example: "println$ len (Env::getenv \"TESSERA_NO_SUCH_VARIABLE\");",
        typing: GETENV.0,
        kernels: GETENV.1,
        ..IO
    },
    PrimDef {
        name: "System::exit",
        schemes: &["int -> void"],
        form: "System::exit code",
        doc: "stop the program with exit status code (taken modulo 256, as the system does); \
            the output written so far is flushed",
        example: "println \"done\"; System::exit 0; println \"never\";",
        typing: EXIT.0,
        kernels: EXIT.1,
        ..IO
    },
    PrimDef {
        name: "cstdin",
        schemes: &["unit -> ifile"],
        form: "cstdin",
        doc: "standard input, an ifile",
        example: "println$ valid cstdin;",
        typing: STDIN.0,
        kernels: STDIN.1,
        ..IO
    },
    PrimDef {
        name: "cstdout",
        schemes: &["unit -> ofile"],
        form: "cstdout",
        doc: "standard output, an ofile",
        example: "fprintln (cstdout, \"on stdout\");",
        typing: STDOUT.0,
        kernels: STDOUT.1,
        ..IO
    },
    PrimDef {
        name: "cstderr",
        schemes: &["unit -> ofile"],
        form: "cstderr",
        doc: "standard error, an ofile",
        example: "fprintln (cstderr, \"on stderr\");",
        typing: STDERR.0,
        kernels: STDERR.1,
        ..IO
    },
    PrimDef {
        name: "fopen_input",
        schemes: &["string -> ifile"],
        form: "fopen_input name",
        doc: "the file name opened for reading; when it cannot be opened, a file for which \
            valid is false (Felix), and reading from it is R0013",
        example: "val f = fopen_input \"no/such/file.txt\"; println$ valid f;",
        typing: OPEN_INPUT.0,
        kernels: OPEN_INPUT.1,
        ..IO
    },
    PrimDef {
        name: "fopen_output",
        schemes: &["string -> ofile"],
        form: "fopen_output name",
        doc: "the file name created (or emptied) for writing; when it cannot be opened, a file \
            for which valid is false, and writing to it is R0013",
        example: "val f = fopen_output \"/dev/null\"; writeln (f, \"gone\"); fclose f; \
            println$ valid f;",
        typing: OPEN_OUTPUT.0,
        kernels: OPEN_OUTPUT.1,
        ..IO
    },
    PrimDef {
        name: "fopen_append",
        schemes: &["string -> ofile"],
        form: "fopen_append name",
        doc: "the file name opened for writing at its end (created when missing)",
        example: "val f = fopen_append \"/dev/null\"; println$ valid f; fclose f;",
        typing: OPEN_APPEND.0,
        kernels: OPEN_APPEND.1,
        ..IO
    },
    PrimDef {
        name: "valid",
        schemes: &["ifile -> bool", "ofile -> bool"],
        form: "valid f",
        doc: "is f open: false for a file that could not be opened or is closed",
        example: "println$ valid cstdout;",
        typing: VALID.0,
        kernels: VALID.1,
        ..IO
    },
    PrimDef {
        name: "fclose",
        schemes: &["ifile -> void", "ofile -> void"],
        form: "fclose f",
        doc: "close f, writing what is buffered (a failed write is R0013); closing a closed or \
            invalid file does nothing, and a standard stream is only flushed",
        example: "val f = fopen_output \"/dev/null\"; fclose f; println$ valid f;",
        typing: CLOSE.0,
        kernels: CLOSE.1,
        ..IO
    },
    PrimDef {
        name: "fflush",
        schemes: &["ofile -> void"],
        form: "fflush f",
        doc: "write what is buffered for f (a failed write is R0013)",
        example: "print \"now\"; fflush cstdout; endl;",
        typing: FLUSH.0,
        kernels: FLUSH.1,
        ..IO
    },
    PrimDef {
        name: "readln",
        schemes: &["ifile -> string"],
        form: "readln f",
        doc: "the next line of f with its newline (the last line may lack one); \"\" at the \
            end of the file",
        example: "println$ readln cstdin == \"\";",
        typing: READLN.0,
        kernels: READLN.1,
        ..IO
    },
    PrimDef {
        name: "load",
        schemes: &["string -> string", "ifile -> string"],
        form: "load name, load f",
        doc: "the whole file name as a string, R0013 when it cannot be read (Felix gives \"\"); \
            load f: the rest of the open file f",
        example: "println$ len (load \"/dev/null\");",
        typing: Typing::Scheme(|a, _| {
            Some(Prim::World(match a[0] {
                Type::String => WorldOp::Load,
                _ => WorldOp::LoadRest,
            }))
        }),
        kernels: |p| matches!(p, Prim::World(WorldOp::Load | WorldOp::LoadRest)).then_some(1),
        ..IO
    },
    PrimDef {
        name: "save",
        schemes: &["string * string -> void"],
        tupled: true,
        form: "save (name, s)",
        doc: "write s as the whole content of the file name, R0013 when it cannot be written",
        example: "save (\"/dev/null\", \"data\");",
        typing: SAVE.0,
        kernels: SAVE.1,
        ..IO
    },
    PrimDef {
        name: "write",
        schemes: &["ofile * string -> void"],
        tupled: true,
        form: "write (f, s)",
        doc: "write the string s to f",
        example: "write (cstdout, \"no newline\"); endl;",
        typing: WRITE.0,
        kernels: WRITE.1,
        ..IO
    },
    PrimDef {
        name: "writeln",
        schemes: &["ofile * string -> void"],
        tupled: true,
        form: "writeln (f, s)",
        doc: "write the string s and a newline to f",
        example: "writeln (cstdout, \"a line\");",
        typing: WRITELN.0,
        kernels: WRITELN.1,
        ..IO
    },
    PrimDef {
        name: "parse_int",
        schemes: &["string -> int"],
        form: "parse_int s",
        doc: "s read as an int: an optional sign and decimal digits, white space around them \
            allowed; anything else is R0014 naming the text and the position of the first \
            offending byte (int s, as in Felix, reads a prefix and gives 0 for no digits)",
        example: "println$ parse_int \" -42\\n\" + 1;",
        typing: Typing::Scheme(|_, _| Some(Prim::Parse(false))),
        kernels: |p| (*p == Prim::Parse(false)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "parse_double",
        schemes: &["string -> double"],
        form: "parse_double s",
        doc: "s read as a double: a decimal number with optional sign, fraction and exponent, \
            or inf, infinity, nan; white space around it allowed; anything else is R0014",
        example: "println$ parse_double \"2.5e3\" / 2.0;",
        typing: Typing::Scheme(|_, _| Some(Prim::Parse(true))),
        kernels: |p| (*p == Prim::Parse(true)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "lines",
        schemes: &["[N:UNITSUM] string -> string ^ N"],
        fresh_sizes: true,
        form: "lines s",
        doc: "the lines of s without their line ends (`\\n` or `\\r\\n`; a last line need not \
            have one): an array whose size is known only when it runs",
        example: "println$ lines \"a\\nbc\\n\";",
        typing: Typing::Scheme(|_, _| Some(Prim::Lines)),
        kernels: |p| (*p == Prim::Lines).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "split",
        schemes: &[
            "[N:UNITSUM] string * char -> string ^ N",
            "[N:UNITSUM] string * string -> string ^ N",
        ],
        tupled: true,
        fresh_sizes: true,
        list_unless_array: true,
        form: "split (s, c)",
        doc: "the pieces of s between the separators: the char c, or any char of the string c; \
            empty pieces included, so n separators make n + 1 pieces; a list, as in Felix, \
            or an array of a size known only when it runs where an array is expected",
        example: "println$ split (\"x,,y\", \",\");\nval [n] p : string ^ n = split (\"a b;c\", \" ;\");\nprintln$ p, len p;",
        typing: Typing::Scheme(|_, _| Some(Prim::Split)),
        kernels: |p| (*p == Prim::Split).then_some(2),
        ..FUNCTION
    },
    PrimDef {
        name: "_random_uniform",
        schemes: &["[N:COMPACTLINEAR] int -> double ^ N"],
        form: "_random_uniform seed",
        doc: "the kernel of `random_uniform[N] seed`, N from the type expected",
        example: "val u : double ^ 2 = _random_uniform 7;\nprintln$ u.0 < 1.0;",
        typing: Typing::Scheme(|_, _| Some(Prim::RandomFill(false))),
        kernels: |p| (*p == Prim::RandomFill(false)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "_random_normal",
        schemes: &["[N:COMPACTLINEAR] int -> double ^ N"],
        form: "_random_normal seed",
        doc: "the kernel of `random_normal[N] seed`, N from the type expected",
        example: "val z : double ^ 2 = _random_normal 7;\nprintln$ len z;",
        typing: Typing::Scheme(|_, _| Some(Prim::RandomFill(true))),
        kernels: |p| (*p == Prim::RandomFill(true)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "rand",
        schemes: &["unit -> int"],
        form: "rand ()",
        doc: "the session's next random int, 0 … 2147483647 (C's RAND_MAX on Linux); the \
            sequence is fixed by the seed, 1 until srand or rand_seed sets it",
        example: "srand 7u; val r = rand (); println$ 0 <= r and r <= 2147483647;",
        typing: RAND.0,
        kernels: RAND.1,
        ..IO
    },
    PrimDef {
        name: "srand",
        schemes: &["uint -> void"],
        form: "srand n",
        doc: "restart the session's generator from seed n (Felix's, C's)",
        example: "srand 1u; val a = rand (); srand 1u; println$ a == rand ();",
        typing: SEED.0,
        kernels: SEED.1,
        ..IO
    },
    PrimDef {
        name: "rand_seed",
        schemes: &["[T:integer] T -> void"],
        form: "rand_seed n",
        doc: "restart the session's generator from seed n, of any integer type",
        example: "rand_seed 2026; val a = rand_double (); rand_seed 2026; \
            println$ a == rand_double ();",
        typing: SEED.0,
        kernels: SEED.1,
        ..IO
    },
    PrimDef {
        name: "rand_int",
        schemes: &["int * int -> int"],
        tupled: true,
        form: "rand_int (lo, hi)",
        doc: "a random int from lo to hi, both included (R0005 when lo > hi)",
        example: "rand_seed 1; val d = rand_int (1, 6); println$ 1 <= d and d <= 6;",
        typing: RAND_INT.0,
        kernels: RAND_INT.1,
        ..IO
    },
    PrimDef {
        name: "rand_double",
        schemes: &["unit -> double"],
        form: "rand_double ()",
        doc: "a random double in [0, 1), from 53 random bits",
        example: "val x = rand_double (); println$ 0.0 <= x and x < 1.0;",
        typing: RAND_DOUBLE.0,
        kernels: RAND_DOUBLE.1,
        ..IO
    },
    PrimDef {
        name: "time",
        aliases: &[Alias {
            name: "Time::time",
            form: "Time::time ()",
            example: "println$ Time::time () > 0.0;",
        }],
        schemes: &["unit -> double"],
        form: "time ()",
        doc: "the seconds since 1970-01-01 UTC, with a fraction: the difference of two times \
            measures a computation",
        example: "val t0 = time (); println$ time () - t0 >= 0.0;",
        typing: TIME.0,
        kernels: TIME.1,
        ..IO
    },
];
