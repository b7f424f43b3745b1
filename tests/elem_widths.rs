//! Arrays of every scalar type, stored at the type's own width, behave the same on every path:
//! one program per scalar type (reads by every index form, stores, stores through a pointer,
//! `for` over the elements, `sort`, `map`, a reshape, folds, `\sum`, printing, a `.npy` round
//! trip, a large array filled by a parallel loop, mapped, sorted and reduced, and a varray of
//! the elements, which stores them at their width too) runs with
//! native code on and off, each on one and two threads, and the four runs must print the same
//! thing. The program also prints what it saved and what it loaded back, which must agree.

use std::io::Write;

use tessera::{render, Session, Settings, SharedBuffer};

/// A scalar type and what its program is made of: six literals (its extremes among them),
/// the element `i` of a large array as an expression of the `int` `i`, an accumulator type
/// with its zero and the term an element `x` adds to it, and whether `.npy` files hold it.
struct Case {
    ty: &'static str,
    values: [&'static str; 6],
    fill: &'static str,
    acc: (&'static str, &'static str),
    term: &'static str,
    npy: bool,
}

const fn int_case(
    ty: &'static str,
    values: [&'static str; 6],
    fill: &'static str,
    term: &'static str,
) -> Case {
    Case {
        ty,
        values,
        fill,
        acc: ("long", "0l"),
        term,
        npy: true,
    }
}

const CASES: &[Case] = &[
    int_case(
        "tiny",
        ["-127t - 1t", "127t", "0t", "-1t", "5t", "-100t"],
        "tiny (i % 256 - 128)",
        "x.long",
    ),
    int_case(
        "utiny",
        ["255ut", "0ut", "1ut", "128ut", "7ut", "200ut"],
        "utiny (i % 256)",
        "x.long",
    ),
    int_case(
        "int8",
        ["-127i8 - 1i8", "127i8", "0i8", "-1i8", "5i8", "-100i8"],
        "int8 (i % 200 - 100)",
        "x.long",
    ),
    int_case(
        "uint8",
        ["255u8", "0u8", "1u8", "128u8", "7u8", "200u8"],
        "uint8 (i % 256)",
        "x.long",
    ),
    int_case(
        "short",
        ["-32767s - 1s", "32767s", "0s", "-1s", "300s", "-300s"],
        "short (i % 65536 - 32768)",
        "x.long",
    ),
    int_case(
        "ushort",
        ["65535us", "0us", "1us", "32768us", "7us", "40000us"],
        "ushort (i % 65536)",
        "x.long",
    ),
    int_case(
        "int16",
        [
            "-32767i16 - 1i16",
            "32767i16",
            "0i16",
            "-1i16",
            "300i16",
            "-300i16",
        ],
        "int16 (i % 60000 - 30000)",
        "x.long",
    ),
    int_case(
        "uint16",
        ["65535u16", "0u16", "1u16", "32768u16", "7u16", "40000u16"],
        "uint16 (i % 65536)",
        "x.long",
    ),
    int_case(
        "int",
        [
            "-2147483647 - 1",
            "2147483647",
            "0",
            "-1",
            "70000",
            "-70000",
        ],
        "i * 7919 - 700000000",
        "x.long",
    ),
    int_case(
        "uint",
        ["4294967295u", "0u", "1u", "2147483648u", "7u", "70000u"],
        "uint i * 21000u",
        "x.long",
    ),
    int_case(
        "int32",
        [
            "-2147483647i32 - 1i32",
            "2147483647i32",
            "0i32",
            "-1i32",
            "70000i32",
            "-70000i32",
        ],
        "int32 (i * 7919 - 700000000)",
        "x.long",
    ),
    int_case(
        "uint32",
        [
            "4294967295u32",
            "0u32",
            "1u32",
            "2147483648u32",
            "7u32",
            "70000u32",
        ],
        "uint32 i * 21000u32",
        "x.long",
    ),
    int_case(
        "long",
        [
            "-9223372036854775807l - 1l",
            "9223372036854775807l",
            "0l",
            "-1l",
            "5l",
            "-5l",
        ],
        "long i * 40000000000l",
        "x % 1000l",
    ),
    int_case(
        "uint64",
        [
            "18446744073709551615u64",
            "0u64",
            "1u64",
            "9223372036854775808u64",
            "7u64",
            "5u64",
        ],
        "uint64 i * 80000000000000u64",
        "(x % 1000u64).long",
    ),
    int_case(
        "size",
        [
            "18446744073709551615uz",
            "0uz",
            "1uz",
            "9223372036854775808uz",
            "7uz",
            "5uz",
        ],
        "size i * 80000000000000uz",
        "(x % 1000uz).long",
    ),
    Case {
        ty: "float",
        values: ["1.5f", "-2.25f", "0.0f", "1.0e30f", "-1.0e-30f", "0.1f"],
        fill: "float (i % 1000) / 8.0f",
        acc: ("double", "0.0"),
        term: "x.double",
        npy: true,
    },
    Case {
        ty: "double",
        values: ["1.5", "-2.25", "0.0", "1.0e300", "-1.0e-300", "0.1"],
        fill: "double (i % 1000) / 3.0",
        acc: ("double", "0.0"),
        term: "x",
        npy: true,
    },
    Case {
        ty: "char",
        values: [
            "char 0", "char 255", "char 65", "char 128", "char 127", "char 10",
        ],
        fill: "char (i % 256)",
        acc: ("long", "0l"),
        term: "(ord x).long",
        npy: false,
    },
    Case {
        ty: "bool",
        values: ["true", "false", "false", "true", "true", "false"],
        fill: "i % 3 == 0",
        acc: ("long", "0l"),
        term: "(if x then 1l else 0l)",
        npy: true,
    },
];

/// The program of one case (`file`: where its `.npy` file goes).
fn program(case: &Case, file: &str) -> String {
    let Case {
        ty,
        values,
        fill,
        acc: (acc_ty, zero),
        term,
        npy,
    } = case;
    let fold = format!("fold_left (fun (acc: {acc_ty}) (x: {ty}) => acc + {term}) {zero}");
    let npy = if *npy {
        format!(
            "save_npy (\"{file}\", a);\n\
             val back : {ty} ^ 6 = load_npy \"{file}\";\n\
             println$ \"loaded \" + str back;\n"
        )
    } else {
        String::new()
    };
    format!(
        "var a : {ty} ^ 6 = ({values});\n\
         println$ \"saved \" + str a;\n\
         {npy}\
         for i in 0 ..< 6 do println$ a.i; done\n\
         println$ a.(case 3 of 6);\n\
         var b = a;\n\
         for k in 0 ..< 6 do &b.k <- a.(5 - k); done\n\
         println$ b;\n\
         val p = &b;\n\
         p.(0) <- a.1;\n\
         println$ *p.0;\n\
         println$ b;\n\
         println$ sort a;\n\
         println$ map (fun (x: {ty}) => x) a;\n\
         println$ map (fun (x: {ty}) => x == a.1) a;\n\
         val r = a :>> {ty} ^ 3 ^ 2;\n\
         println$ r;\n\
         println$ r.(1).(2);\n\
         println$ {fold} a;\n\
         for x in a do println$ x; done\n\
         var big : {ty} ^ 200000;\n\
         for i in 0 ..< 200000 do &big.i <- {fill}; done\n\
         println$ {fold} big;\n\
         val m = map (fun (x: {ty}) => x) big;\n\
         println$ m.199999;\n\
         println$ (sort big).(100000);\n\
         println$ \\sum (map (fun (x: {ty}) => {term}) big);\n\
         val v = varray a;\n\
         println$ \"varray \" + str (array v :>> {ty} ^ 6);\n\
         set (v, 0, v.5);\n\
         pop v;\n\
         println$ v, len v;\n",
        values = values.join(", "),
    )
}

/// stdout and stderr of one run, in a fresh session.
fn run(source: &str, jit: bool, threads: usize) -> (String, String) {
    let source = source.to_string();
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let out = SharedBuffer::default();
            let err = SharedBuffer::default();
            let settings = Settings::default()
                .with_stdout(out.clone())
                .with_stderr(err.clone())
                .with_threads(threads)
                .with_jit(jit)
                .with_jit_all(true);
            let mut session = Session::new(settings);
            if let Err(diags) = session.run_source(&source) {
                session.flush();
                let rendered = render(&diags, "case.flx", &source, false);
                err.clone()
                    .write_all(rendered.as_bytes())
                    .expect("a buffer");
            }
            drop(session);
            (out.text(), err.text())
        })
        .expect("a thread")
        .join()
        .expect("the run returns")
}

#[test]
fn every_scalar_width_agrees_on_every_path() {
    let dir = std::env::temp_dir().join(format!("tessera-elem-widths-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    let mut failures = Vec::new();
    for case in CASES {
        let file = dir.join(format!("{}.npy", case.ty));
        let source = program(case, &file.to_string_lossy());
        let reference = run(&source, true, 2);
        if !reference.1.is_empty() {
            failures.push(format!("{}: failed natively:\n{}", case.ty, reference.1));
            continue;
        }
        for (jit, threads) in [(false, 2), (true, 1), (false, 1)] {
            let other = run(&source, jit, threads);
            if other != reference {
                failures.push(format!(
                    "{} with native code {jit} on {threads} threads differs:\n\
                     --- native, 2 threads\n{}\n--- this run\n{}{}",
                    case.ty, reference.0, other.0, other.1
                ));
            }
        }
        let line = |label: &str| {
            reference
                .0
                .lines()
                .find_map(|l| l.strip_prefix(label).map(str::to_string))
        };
        // A varray stores its elements at their width too: they come back as they went in.
        if line("varray ") != line("saved ") {
            failures.push(format!(
                "{}: the varray of {:?} holds {:?}",
                case.ty,
                line("saved "),
                line("varray ")
            ));
        }
        if case.npy {
            let (saved, loaded) = (line("saved "), line("loaded "));
            assert!(saved.is_some(), "{}: the saved array is printed", case.ty);
            if saved != loaded {
                failures.push(format!(
                    "{}: the .npy round trip gives {loaded:?} for {saved:?}",
                    case.ty
                ));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
