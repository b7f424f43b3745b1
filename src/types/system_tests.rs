//! The type system end to end: for every pair of scalar types and every operator, the type
//! rule (what `:type` says) and the kernel (what running prints) agree; overflow (R0003) and
//! conversion (R0005) for every integer width; the behaviour named by each failed rule.

use std::io::Write;
use std::sync::{Arc, Mutex};

use crate::types::IntTy;
use crate::{Session, Settings};

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Run a program; its stdout, or the codes of its diagnostics.
fn run(src: &str) -> Result<String, Vec<&'static str>> {
    let out = Captured::default();
    let mut session = Session::new(Settings::default().with_stdout(out.clone()));
    let result = session.run_source(src);
    session.flush();
    let text = String::from_utf8_lossy(&out.0.lock().unwrap()).into_owned();
    match result {
        Ok(()) => Ok(text),
        Err(diags) => Err(diags.iter().map(|d| d.code).collect()),
    }
}

fn type_of(defs: &str, expr: &str) -> Result<String, Vec<&'static str>> {
    let mut session = Session::new(Settings::default().with_stdout(std::io::sink()));
    session.run_source(defs).expect("definitions run");
    session
        .type_of(expr)
        .map_err(|d| d.iter().map(|d| d.code).collect())
}

/// A sample value of each scalar type, as source, and the scalar's name.
fn scalars() -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = IntTy::ALL
        .iter()
        .map(|t| {
            (
                t.name().to_string(),
                format!(
                    "7{}",
                    if t.suffix().is_empty() {
                        ""
                    } else {
                        t.suffix()
                    }
                ),
            )
        })
        .collect();
    v.push(("double".into(), "2.5".into()));
    v.push(("float".into(), "2.5f".into()));
    v.push(("string".into(), "\"s\"".into()));
    v.push(("bool".into(), "true".into()));
    v.push(("natural".into(), "(7 :>> natural)".into()));
    v
}

/// What `_strr` of a value of the named scalar type looks like.
fn looks_like(ty: &str, text: &str) -> bool {
    let text = text.trim();
    if let Some(t) = IntTy::ALL.iter().find(|t| t.name() == ty) {
        let digits = text.strip_suffix(t.suffix()).unwrap_or("");
        let digits = digits.strip_prefix('-').unwrap_or(digits);
        return !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit());
    }
    match ty {
        "double" | "float" => {
            text.parse::<f64>().is_ok() || ["inf", "+inf", "-inf", "nan"].contains(&text)
        }
        "string" => text.starts_with('\'') && text.ends_with('\''),
        "bool" => text == "true" || text == "false",
        "natural" => !text.is_empty() && text.chars().all(|c| c.is_ascii_digit()),
        _ => false,
    }
}

#[test]
fn type_rules_and_kernels_agree_for_every_scalar_pair() {
    let ops = [
        "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "\\&", "\\|", "\\^", "<<", ">>",
    ];
    let mut disagreements = Vec::new();
    let mut accepted = 0;
    for (ta, va) in scalars() {
        for (tb, vb) in scalars() {
            let defs = format!("val a : {ta} = {va};\nval b : {tb} = {vb};\n");
            for op in ops {
                let expr = format!("a {op} b");
                let Ok(result_ty) = type_of(&defs, &expr) else {
                    continue;
                };
                accepted += 1;
                let program = format!("{defs}println$ ({expr})._strr;\n");
                match run(&program) {
                    Ok(out) if looks_like(&result_ty, &out) => {}
                    // A runtime error of the kernel (e.g. 7u8 - 7u8 is fine, but 7 % 0 is not
                    // possible here) is still agreement on the type.
                    Err(codes) if codes.iter().all(|c| c.starts_with('R') && *c != "R0000") => {}
                    other => disagreements.push(format!(
                        "{ta} {op} {tb}: rule says {result_ty}, kernel gave {other:?}"
                    )),
                }
            }
        }
    }
    assert!(accepted > 200, "only {accepted} combinations type-checked");
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

#[test]
fn widening_promotes_and_mixing_is_rejected() {
    assert_eq!(type_of("", "1L + 2").unwrap(), "long");
    assert_eq!(type_of("", "7i8 + 1i64").unwrap(), "int64");
    assert_eq!(type_of("", "1 + 2.0").unwrap_err(), vec!["E0301"]);
    assert_eq!(type_of("", "1u + 2").unwrap_err(), vec!["E0301"]);
    assert_eq!(type_of("", "1 + 2i32").unwrap_err(), vec!["E0301"]);
    assert_eq!(run("var a : int8 = 5;").unwrap_err(), vec!["E0301"]);
    assert!(run("var a : long = 5; var b : int64 = 5i8; var c : vlong = 5L;").is_ok());
    // The named integer types: tiny → short → int → long joins the chain; the unsigned ones do not widen.
    assert_eq!(type_of("", "1t + 2s").unwrap(), "short");
    assert_eq!(type_of("", "1t + 2").unwrap(), "int");
    assert_eq!(type_of("", "1s + 2L").unwrap(), "long");
    assert_eq!(type_of("", "1ut + 2us").unwrap_err(), vec!["E0301"]);
    assert_eq!(type_of("", "1t + 2i8").unwrap_err(), vec!["E0301"]);
    assert!(run("var a : int = 5t; var b : short = 5t; var c : vlong = 5s;").is_ok());
    assert_eq!(run("var a : tiny = 5;").unwrap_err(), vec!["E0301"]);
}

#[test]
fn bitwise_operators_for_every_integer_width() {
    for t in IntTy::ALL {
        let s = t.suffix();
        let bits = t.bits();
        // Shifts take every integer type; the count must be below the width (R0010).
        assert_eq!(
            run(&format!("println$ 1{s} << 1{s};\n")).unwrap(),
            "2\n",
            "{} <<",
            t.name()
        );
        assert_eq!(
            run(&format!("var n = {bits}{s};\nprintln$ 1{s} << n;\n")).unwrap_err(),
            vec!["R0010"],
            "{} << width",
            t.name()
        );
        assert_eq!(
            run(&format!("var n = {bits}{s};\nprintln$ 1{s} >> n;\n")).unwrap_err(),
            vec!["R0010"],
            "{} >> width",
            t.name()
        );
        if t.signed() {
            // Signed: no `\&`, a `<<` past the maximum is R0003, `>>` is arithmetic.
            assert_eq!(
                type_of("", &format!("1{s} \\& 1{s}")).unwrap_err(),
                vec!["E0301"]
            );
            assert_eq!(
                run(&format!("var x = {}{s};\nprintln$ x << 1{s};\n", t.max())).unwrap_err(),
                vec!["R0003"],
                "{} max << 1",
                t.name()
            );
            assert_eq!(
                run(&format!("var x = -8{s};\nprintln$ x >> 1{s};\n")).unwrap(),
                "-4\n"
            );
            assert!(run(&format!("println$ -1{s} << -1{s};\n")).unwrap_err() == vec!["R0010"]);
        } else {
            // Unsigned: and, or, xor, complement within the width; `<<` wraps.
            assert_eq!(
                run(&format!(
                    "println$ 12{s} \\& 10{s}; println$ 12{s} \\| 10{s}; println$ 12{s} \\^ 10{s};\n"
                ))
                .unwrap(),
                "8\n14\n6\n"
            );
            assert_eq!(
                run(&format!("println$ ~0{s};\n")).unwrap(),
                format!("{}\n", t.max()),
                "~0 of {}",
                t.name()
            );
            assert_eq!(
                run(&format!("var x = {}{s};\nprintln$ x << 1{s};\n", t.max())).unwrap(),
                format!("{}\n", t.max() - 1),
                "{} max << 1 wraps",
                t.name()
            );
        }
    }
}

#[test]
fn overflow_is_r0003_for_every_integer_width() {
    for t in IntTy::ALL {
        let suffix = t.suffix();
        let max = format!("{}{suffix}", t.max());
        let one = format!("1{suffix}");
        assert_eq!(
            run(&format!("var x = {max};\nprintln$ x + {one};\n")).unwrap_err(),
            vec!["R0003"],
            "{} max + 1",
            t.name()
        );
        assert_eq!(
            run(&format!("var x = {max};\nprintln$ x * 2{suffix};\n")).unwrap_err(),
            vec!["R0003"],
            "{} max * 2",
            t.name()
        );
        if t.signed() {
            let min_plus_one = format!("{}{suffix}", t.min() + 1);
            assert_eq!(
                run(&format!(
                    "var x = -{}{suffix};\nprintln$ x - {one} - {one};\n",
                    -(t.min() + 1)
                ))
                .unwrap_err(),
                vec!["R0003"],
                "{} min - 1 (from {min_plus_one})",
                t.name()
            );
        } else {
            assert_eq!(
                run(&format!("var x = 0{suffix};\nprintln$ x - {one};\n")).unwrap_err(),
                vec!["R0003"],
                "{} 0 - 1",
                t.name()
            );
        }
        assert_eq!(
            run(&format!("var x = {max};\nprintln$ x;\n")).unwrap(),
            format!("{}\n", t.max())
        );
    }
}

#[test]
fn conversion_out_of_range_is_r0005_for_every_integer_width() {
    for t in IntTy::ALL {
        let name = t.name();
        // From a double beyond the range.
        assert_eq!(
            run(&format!("println$ {name} 1.0e30;\n")).unwrap_err(),
            vec!["R0005"],
            "{name} of 1e30"
        );
        assert_eq!(
            run(&format!("println$ {name} (-1.0e30);\n")).unwrap_err(),
            vec!["R0005"],
            "{name} of -1e30"
        );
        // From a string beyond the range.
        assert_eq!(
            run(&format!("println$ {name} \"99999999999999999999999\";\n")).unwrap_err(),
            vec!["R0005"],
            "{name} of a long string"
        );
        // From the widest integer type of the other signedness, when it cannot fit.
        if t.bits() < 64 {
            let over = t.max() + 1;
            assert_eq!(
                run(&format!("println$ {name} {over}L;\n")).unwrap_err(),
                vec!["R0005"],
                "{name} of {over}L"
            );
        }
        if !t.signed() {
            assert_eq!(
                run(&format!("println$ {name} (-1);\n")).unwrap_err(),
                vec!["R0005"],
                "{name} of -1"
            );
        }
        // And a conversion that fits works.
        assert_eq!(
            run(&format!("println$ {name} 100;\n")).unwrap(),
            "100\n",
            "{name} of 100"
        );
    }
}

#[test]
fn failed_behaviours_are_named() {
    let message = |src: &str| {
        let mut session = Session::new(Settings::default().with_stdout(std::io::sink()));
        let diags = session.run_source(src).unwrap_err();
        diags[0].message.clone()
    };
    assert_eq!(
        message("println$ true + false;"),
        "`bool` is not arithmetic"
    );
    assert_eq!(
        message("println$ 1 + \"s\";"),
        "no `+` for `int` and `string`"
    );
    assert_eq!(
        message("println$ 1 + 2.0;"),
        "no `+` for `int` and `double`"
    );
    assert!(message("val f = fun (x:int) => x;\nprintln$ f == f;").contains("has no equality"));
    assert_eq!(
        message("println$ int true;"),
        "`bool` is not convertible to `int`"
    );
    // The component that lacks the behaviour is named.
    assert_eq!(
        message("struct S { f: int -> int; }\nval a = S (fun (x:int) => x);\nprintln$ a == a;"),
        "`S` has no equality: its field `f` is a function (`int -> int`)"
    );
}
