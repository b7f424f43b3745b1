//! Non-interference of secret values. For random programs over secret inputs, changing the
//! secret inputs never changes what the program prints: a program the checker accepts prints
//! the same with either set of inputs (no program here uses `reveal`), and a program it
//! rejects is rejected the same way. The generator mixes secret and public variables,
//! operators, calls of functions written for public values, `map`, `fold_left`, `\sum`,
//! branches, loops, stores and prints, so many programs try to leak and must be rejected, and
//! many do not and must print identically.

use std::io::Write;
use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use tessera::{Session, Settings};

/// An output stream the test can read back.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("unpoisoned").extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// What running a program gives: its stdout, or its error codes.
fn run(src: &str) -> Result<String, Vec<String>> {
    let out = Shared::default();
    let mut session = Session::new(Settings::default().with_stdout(out.clone()));
    let result = session.run_source(src);
    let printed = String::from_utf8_lossy(&out.0.lock().expect("unpoisoned")).into_owned();
    match result {
        Ok(()) => Ok(printed),
        Err(diags) => Err(diags.iter().map(|d| d.code.to_string()).collect()),
    }
}

/// The program's fixed part: secret inputs (one digit each, so both runs have the same
/// spans), public variables, and functions written for public values.
fn prelude(inputs: &[u8; 6]) -> String {
    format!(
        "var s0 : secret int = {};\n\
         var s1 : secret int = {};\n\
         var sa : secret int ^ 4 = {}, {}, {}, {};\n\
         var p0 = 3;\n\
         var p1 = 7;\n\
         var count = 0;\n\
         val pa = 1, 2, 3, 4;\n\
         fun mix (x: int, y: int) : int => x * 2 + y;\n\
         fun thrice (x: int) : int = {{ var acc = 0; for i in 0 ..< 3 do acc = acc + x; done return acc; }}\n\
         fun clip (x: int) : int => if x > 5 then 5 else x;\n\
         proc show (x: int) {{ println x; }}\n",
        inputs[0], inputs[1], inputs[2], inputs[3], inputs[4], inputs[5]
    )
}

fn atom() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("s0".to_string()),
        Just("s1".to_string()),
        Just("p0".to_string()),
        Just("p1".to_string()),
        (0u8..10).prop_map(|n| n.to_string()),
        (0u8..4).prop_map(|i| format!("sa.{i}")),
        (0u8..4).prop_map(|i| format!("pa.{i}")),
    ]
}

fn expr() -> impl Strategy<Value = String> {
    atom().prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} + {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} - {b})")),
            (inner.clone(), 0u8..4).prop_map(|(a, k)| format!("({a} * {k})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("mix ({a}, {b})")),
            inner.clone().prop_map(|a| format!("thrice ({a})")),
            inner.clone().prop_map(|a| format!("clip ({a})")),
            (inner.clone(), inner.clone())
                .prop_map(|(a, b)| format!("(if p0 > 2 then {a} else {b})")),
            inner
                .clone()
                .prop_map(|a| format!("(\\sum (map (fun (x:int) => x + {a}) sa))")),
            Just("fold_left (fun (a:int) (b:int) => a + b) 0 sa".to_string()),
            Just("(\\sum pa)".to_string()),
        ]
    })
}

fn statement() -> impl Strategy<Value = String> {
    prop_oneof![
        expr().prop_map(|e| format!("println$ {e};")),
        expr().prop_map(|e| format!("show ({e});")),
        (expr(), expr()).prop_map(|(a, b)| format!("if {a} > {b} do println 1; done")),
        // The loop counts in a variable no expression reads: a loop re-reads its limit, so
        // one incrementing a variable of the limit would never end.
        expr().prop_map(|e| format!("for i in 0 ..< {e} do count = count + 1; done")),
        Just("println$ count;".to_string()),
        expr().prop_map(|e| format!("p0 = {e};")),
        expr().prop_map(|e| format!("s0 = {e};")),
        expr().prop_map(|e| format!("println$ str ({e}, 1);")),
        expr().prop_map(|e| format!("var t = {e};")),
        Just("println$ p0 + p1;".to_string()),
        Just("iter (proc (x:int) { println x; }) sa;".to_string()),
        Just("iter (proc (x:int) { s1 = s1 + x; }) sa;".to_string()),
        Just("iter (proc (x:int) { p1 = p1 + x; }) sa;".to_string()),
        Just("iter (proc (x:int) { println x; }) pa;".to_string()),
        expr()
            .prop_map(|e| format!("var t = scan_left (fun (a:int) (x:int) => a + x + {e}) 0 sa;")),
    ]
}

fn program() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(statement(), 1..6)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn secret_inputs_never_change_the_output(
        body in program(),
        a in prop::array::uniform6(1u8..10),
        b in prop::array::uniform6(1u8..10),
    ) {
        // Each statement in its own block, so `var t` may repeat.
        let body: String = body.iter().map(|s| format!("begin {s} end\n")).collect();
        let first = run(&(prelude(&a) + &body));
        let second = run(&(prelude(&b) + &body));
        prop_assert_eq!(first, second);
    }
}

/// The generator's programs are not all rejected: these print, whatever the secrets.
#[test]
fn programs_that_keep_secrets_are_accepted_and_print_the_same() {
    let body = "println$ p0 + p1;\nvar t = mix (s0, s1) + thrice (sa.2);\ns0 = t + fold_left (fun (a:int) (b:int) => a + b) 0 sa;\nprintln$ \\sum pa;\nfor i in 0 ..< p0 do p1 = p1 + 1; done\nprintln$ p1;\n";
    let first = run(&(prelude(&[1, 2, 3, 4, 5, 6]) + body));
    let second = run(&(prelude(&[9, 8, 7, 6, 5, 4]) + body));
    assert_eq!(first, Ok("10\n10\n10\n".to_string()));
    assert_eq!(first, second);
}

/// And the leaks are rejected, each with its code.
#[test]
fn programs_that_would_leak_are_rejected() {
    let inputs = [1, 2, 3, 4, 5, 6];
    let codes = |body: &str| run(&(prelude(&inputs) + body)).err();
    let one = |code: &str| Some(vec![code.to_string()]);
    assert_eq!(codes("println$ s0;\n"), one("E0801"));
    assert_eq!(codes("if s0 > 2 do println 1; done\n"), one("E0802"));
    assert_eq!(
        codes("for i in 0 ..< s1 do p1 = p1 + 1; done\n"),
        one("E0803")
    );
    assert_eq!(codes("p0 = s0 + 1;\n"), one("E0804"));
    assert_eq!(codes("show (mix (s0, 1));\n"), one("E0806"));
    assert_eq!(codes("val c = clip s0;\n"), one("E0806"));
    assert_eq!(
        codes("iter (proc (x:int) { println x; }) sa;\n"),
        one("E0806")
    );
    assert_eq!(
        codes("iter (proc (x:int) { p1 = p1 + x; }) sa;\n"),
        one("E0806")
    );
    assert_eq!(codes("println$ f\"%d\" s0;\n"), one("E0801"));
    assert_eq!(
        codes("val k = caseno (s0 > 1);\nprintln$ k;\n"),
        one("E0801")
    );
}
