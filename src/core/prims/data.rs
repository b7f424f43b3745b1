//! The functions that read and write data files: numpy's `.npy` and `.npz`, CSV.
//!
//! A loader's result type is the type the program asks for (`val a : double ^ (3 \* 4) =
//! load_npy "a.npy";`): its element type and shape are checked against the file when it runs.

use super::*;

pub(super) const DATA: &[PrimDef] = &[
    PrimDef {
        name: "load_npy",
        schemes: &["[T, N:COMPACTLINEAR] string -> T ^ N"],
        effect: true,
        form: "load_npy f",
        doc: "the array in the numpy file f, of the type the program expects (`val a : double ^ (3 \\* 4) = load_npy f;`); the file's dtype and shape must match it",
        example: "val a : int ^ (2 \\* 3) = (1, 2, 3, 4, 5, 6) :>> int ^ (2 \\* 3);\nsave_npy (\"/tmp/tessera-doc-load.npy\", a);\nval b : int ^ (2 \\* 3) = load_npy \"/tmp/tessera-doc-load.npy\";\nprintln b;",
        typing: Typing::Scheme(|_, _| Some(Prim::LoadNpy)),
        kernels: |p| matches!(p, Prim::LoadNpy | Prim::Dist(DistOp::LoadNpy)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "save_npy",
        schemes: &["[T, N:COMPACTLINEAR] string * T ^ N -> void"],
        tupled: true,
        effect: true,
        form: "save_npy (f, a)",
        doc: "write a to the numpy file f: an array over `A \\* B \\* C` as a 3-d array, over any other index as a 1-d array",
        example: "val a : double ^ 3 = (0.5, 1.5, 2.5);\nsave_npy (\"/tmp/tessera-doc-save.npy\", a);",
        typing: Typing::Scheme(|_, _| Some(Prim::SaveNpy)),
        kernels: |p| matches!(p, Prim::SaveNpy | Prim::Dist(DistOp::SaveNpy)).then_some(2),
        ..FUNCTION
    },
    PrimDef {
        name: "load_npz",
        schemes: &["[T, N:COMPACTLINEAR] string * string -> T ^ N"],
        tupled: true,
        effect: true,
        form: "load_npz (f, name)",
        doc: "the array `name` of the numpy archive f (numpy's `savez` or `savez_compressed`), read as `load_npy` reads a file",
        example: "val a : double ^ 2 = (1.0, 2.0);\nsave_npz (\"/tmp/tessera-doc-load.npz\", \"a\", a);\nval b : double ^ 2 = load_npz (\"/tmp/tessera-doc-load.npz\", \"a\");\nprintln b;",
        typing: Typing::Scheme(|_, _| Some(Prim::LoadNpz)),
        kernels: |p| (*p == Prim::LoadNpz).then_some(2),
        ..FUNCTION
    },
    PrimDef {
        name: "save_npz",
        schemes: &["[T, N:COMPACTLINEAR] string * string * T ^ N -> void"],
        tupled: true,
        effect: true,
        form: "save_npz (f, name, a)",
        doc: "add a to the numpy archive f as the array `name` (replacing an array of that name; the archive is created if missing)",
        example: "val a : int ^ 3 = (1, 2, 3);\nsave_npz (\"/tmp/tessera-doc-save.npz\", \"counts\", a);",
        typing: Typing::Scheme(|_, _| Some(Prim::SaveNpz)),
        kernels: |p| (*p == Prim::SaveNpz).then_some(3),
        ..FUNCTION
    },
    PrimDef {
        name: "save_svg",
        schemes: &["[T, N:COMPACTLINEAR] string * T ^ N -> void"],
        tupled: true,
        effect: true,
        form: "save_svg (f, a)",
        doc: "draw a to the SVG file f: an array of numbers of one dimension as a line chart, of two (`T ^ (r \\* c)`, `T ^ c ^ r`) as a heatmap, row 0 at the top, with the index ranges and the value range",
        example: "var wave : double ^ 100;\nfor i in ..[100] do &wave.i <- sin (double (i :>> int) / 10.0); done\nsave_svg (\"/tmp/tessera-doc-wave.svg\", wave);",
        typing: Typing::Scheme(|_, _| Some(Prim::SavePicture(false))),
        kernels: |p| (*p == Prim::SavePicture(false)).then_some(2),
        ..FUNCTION
    },
    PrimDef {
        name: "save_png",
        schemes: &["[T, N:COMPACTLINEAR] string * T ^ N -> void"],
        tupled: true,
        effect: true,
        form: "save_png (f, a)",
        doc: "write a to the PNG file f: a `uint8 ^ (h \\* w)` array as a grey image and a `(uint8 * uint8 * uint8) ^ (h \\* w)` one as an RGB image, one pixel per element; any other array of numbers drawn as `save_svg` draws it (a line chart with its value and index ranges, or a heatmap with a colour bar labelled with the value range)",
        example: "val img : uint8 ^ (2 \\* 2) = (0u8, 85u8, 170u8, 255u8) :>> uint8 ^ (2 \\* 2);\nsave_png (\"/tmp/tessera-doc-grey.png\", img);",
        typing: Typing::Scheme(|_, _| Some(Prim::SavePicture(true))),
        kernels: |p| (*p == Prim::SavePicture(true)).then_some(2),
        ..FUNCTION
    },
    PrimDef {
        name: "load_csv",
        schemes: &["[T, N:COMPACTLINEAR] string -> T ^ N"],
        effect: true,
        form: "load_csv f",
        doc: "the CSV file f (commas, a header row), of the type the program expects: a matrix of numbers, bools or strings (`double ^ (r \\* c)`, a header skipped), a column (`double ^ n`) or an array of records or structs whose fields name columns of the header and whose types decide how each column is read",
        example: "val m : double ^ (2 \\* 2) = (1.0, 2.5, -3.0, 4.0) :>> double ^ (2 \\* 2);\nsave_csv (\"/tmp/tessera-doc-load.csv\", m);\nval back : double ^ (2 \\* 2) = load_csv \"/tmp/tessera-doc-load.csv\";\nprintln back;",
        typing: Typing::Scheme(|_, _| Some(Prim::LoadCsv(false))),
        kernels: |p| (*p == Prim::LoadCsv(false)).then_some(1),
        ..FUNCTION
    },
    PrimDef {
        name: "load_csv_with",
        schemes: &["[T, N:COMPACTLINEAR] string * (comment: string, delimiter: string, header: bool) -> T ^ N"],
        tupled: true,
        effect: true,
        form: "load_csv_with (f, (comment = c, delimiter = d, header = h))",
        doc: "`load_csv f` with options: the delimiter (one character), whether the first row is a header, and the character that starts a comment line (`\"\"` for none)",
        example: "val m : int ^ (1 \\* 3) = (1, 2, 3) :>> int ^ (1 \\* 3);\nsave_csv_with (\"/tmp/tessera-doc-with.csv\", (comment = \"\", delimiter = \";\", header = false), m);\nval back : int ^ (1 \\* 3) = load_csv_with (\"/tmp/tessera-doc-with.csv\", (comment = \"#\", delimiter = \";\", header = false));\nprintln back;",
        typing: Typing::Scheme(|_, _| Some(Prim::LoadCsv(true))),
        kernels: |p| (*p == Prim::LoadCsv(true)).then_some(2),
        ..FUNCTION
    },
    PrimDef {
        name: "save_csv",
        schemes: &["[T, N:COMPACTLINEAR] string * T ^ N -> void"],
        tupled: true,
        effect: true,
        form: "save_csv (f, a)",
        doc: "write a to the CSV file f with commas and a header row: a matrix as its rows (the header numbers the columns), a 1-d array as one column, records or structs one a row under their field names",
        example: "val m : double ^ (2 \\* 2) = (1.0, 2.5, -3.0, 4.0) :>> double ^ (2 \\* 2);\nsave_csv (\"/tmp/tessera-doc-save.csv\", m);\nprint$ load \"/tmp/tessera-doc-save.csv\";",
        typing: Typing::Scheme(|_, _| Some(Prim::SaveCsv(false))),
        kernels: |p| (*p == Prim::SaveCsv(false)).then_some(2),
        ..FUNCTION
    },
    PrimDef {
        name: "save_csv_with",
        schemes: &["[T, N:COMPACTLINEAR] string * (comment: string, delimiter: string, header: bool) * T ^ N -> void"],
        tupled: true,
        effect: true,
        form: "save_csv_with (f, (comment = c, delimiter = d, header = h), a)",
        doc: "`save_csv (f, a)` with the options of `load_csv_with` (the comment character is not used in writing)",
        example: "val v : double ^ 2 = (0.5, 1.5);\nsave_csv_with (\"/tmp/tessera-doc-savew.csv\", (comment = \"\", delimiter = \"\\t\", header = false), v);",
        typing: Typing::Scheme(|_, _| Some(Prim::SaveCsv(true))),
        kernels: |p| (*p == Prim::SaveCsv(true)).then_some(3),
        ..FUNCTION
    },
    PrimDef {
        name: "_shaped",
        section: Section::Internal,
        schemes: &["[T, N:COMPACTLINEAR, K:UNITSUM] T ^ N -> T ^ N * size ^ K"],
        effect: true,
        doc: "a loaded array with its dimensions, for the run-time sizes of its type",
        typing: Typing::Internal,
        kernels: |p| (*p == Prim::Shaped).then_some(1),
        ..FUNCTION
    },
];
