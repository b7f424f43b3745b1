//! Property tests of robustness: random token soups and grammar-directed random programs go
//! through lex, parse, check and run in a session; none may panic, every diagnostic has a span
//! inside the source, and the outcome maps to exit status 0, 1 or 3. Each run is bounded: the
//! session's limits are lowered (allocations, natural size, call depth) and a
//! watchdog stops evaluation after two seconds through the Ctrl-C flag.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use tessera::exit_status;
use tessera::{Session, Settings};

/// The settings of a bounded run: lower limits on allocations, naturals and call depth.
fn bounded_settings() -> Settings {
    let mut settings = Settings::default().with_stdout(std::io::sink());
    settings.limits.max_alloc_bytes = 64 << 20;
    settings.limits.max_natural_bits = 1 << 16;
    settings.limits.max_call_depth = 2000;
    settings
}

/// Run `src` as a file in a fresh session, within two seconds, and check the properties.
fn run_bounded(src: &str) -> Result<(), TestCaseError> {
    tessera::interrupt::clear();
    let done = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let done = done.clone();
        std::thread::spawn(move || {
            let start = Instant::now();
            while !done.load(Ordering::Relaxed) {
                if start.elapsed() > Duration::from_secs(2) {
                    tessera::interrupt::request();
                    return;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        })
    };
    let outcome = std::panic::catch_unwind(|| {
        let mut session = Session::new(bounded_settings());
        session.run_source(src)
    });
    done.store(true, Ordering::Relaxed);
    watchdog.join().unwrap();
    tessera::interrupt::clear();
    let result = outcome.map_err(|_| TestCaseError::fail(format!("panic on:\n{src}")))?;
    if let Err(diags) = result {
        prop_assert!(!diags.is_empty());
        for diag in &diags {
            prop_assert!(
                diag.span.start <= diag.span.end && diag.span.end <= src.len(),
                "{} at {:?} outside the source of {} bytes:\n{src}",
                diag.code,
                diag.span,
                src.len()
            );
            prop_assert!(
                diag.code != "R0000",
                "internal error {}:\n{src}",
                diag.message
            );
        }
        let status = exit_status(&diags);
        prop_assert!(status == 1 || status == 3, "status {status}");
    }
    Ok(())
}

const TOKENS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ";",
    ":",
    ".",
    "..",
    "..<",
    "$",
    "|>",
    "|",
    "#",
    "&",
    "<-",
    "->",
    "=>",
    ":>>",
    "=",
    "==",
    "!=",
    "<",
    "<=",
    ">",
    "+",
    "-",
    "*",
    "/",
    "%",
    "^",
    "++",
    "\\*",
    "\\+",
    "\\^",
    "\\,",
    "`",
    "1",
    "0",
    "3",
    "2147483648",
    "1.5",
    "'c'",
    "\"s\"",
    "x",
    "y",
    "f",
    "int",
    "double",
    "bool",
    "string",
    "natural",
    "fun",
    "val",
    "var",
    "if",
    "then",
    "else",
    "endif",
    "match",
    "with",
    "endmatch",
    "for",
    "in",
    "do",
    "done",
    "begin",
    "end",
    "typedef",
    "struct",
    "variant",
    "return",
    "println",
    "len",
    "\\sum",
    "true",
    "false",
    "not",
    "and",
    "or",
    "while",
    "break",
    "case",
    "of",
    "\n",
    "/*",
    "*/",
    "//",
];

fn token_soup() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TOKENS), 0..80).prop_map(|tokens| tokens.join(" "))
}

/// Grammar-directed expressions over the variables `x : int`, `s : string`, `c : 3 \* 4`.
fn expr() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        (-5i64..100000).prop_map(|n| n.to_string()),
        Just("x".to_string()),
        Just("s".to_string()),
        Just("c".to_string()),
        Just("true".to_string()),
        Just("\"ab\"".to_string()),
        Just("(2 :>> natural)".to_string()),
        Just("a".to_string()),
    ];
    leaf.prop_recursive(5, 48, 4, |inner| {
        prop_oneof![
            (
                inner.clone(),
                prop::sample::select(&["+", "-", "*", "/", "%", "==", "<", "and"][..]),
                inner.clone()
            )
                .prop_map(|(a, op, b)| format!("({a} {op} {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a}, {b})")),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, a, b)| format!("(if {c} then {a} else {b} endif)")),
            inner
                .clone()
                .prop_map(|a| format!("(fun (y:int) => {a}) 3")),
            (inner.clone(), 0u32..6).prop_map(|(a, i)| format!("{a}.{i}")),
            (
                inner.clone(),
                prop::sample::select(&["int", "3", "3 \\* 4", "natural", "string", "2 \\^ 70"][..])
            )
                .prop_map(|(a, t)| format!("({a} :>> {t})")),
            inner.clone().prop_map(|a| format!("(str {a})")),
            inner.prop_map(|a| format!("(len {a})")),
        ]
    })
}

fn statement() -> impl Strategy<Value = String> {
    prop_oneof![
        expr().prop_map(|e| format!("println$ {e};")),
        expr().prop_map(|e| format!("x = {e};")),
        expr().prop_map(|e| format!("s = s + str {e};")),
        (expr(), 0u32..50)
            .prop_map(|(e, n)| format!("for i in 0 ..< {n} do x = x + len (str {e}); done")),
        expr().prop_map(|e| format!("val v{} = {e};", e.len())),
        expr().prop_map(|e| format!("fun g{} (z:int) => {e};", e.len())),
        Just("while x > 0 do x = x - 1; done".to_string()),
        Just("s = s + s;".to_string()),
        // Records and structs.
        expr().prop_map(|e| format!("println$ (r.a + {e}, r.b);")),
        expr().prop_map(|e| format!("r = (a={e}, b=r.b);")),
        expr().prop_map(|e| format!("println$ P ({e}, s);")),
        // Pointers: through `&`, stores, and a variable declared after its use.
        expr().prop_map(|e| format!("var p{n} = &x; p{n} <- {e}; println$ *p{n};", n = e.len())),
        expr().prop_map(|e| format!("&a.1 <- {e}; println$ *(&a);")),
        Just("println$ *(&later); var later = 2;".to_string()),
        // Secrets.
        expr().prop_map(|e| format!("k = k + {e}; println$ reveal k;")),
        expr().prop_map(|e| format!("println$ {e} + k;")),
        Just("if k > 0 do println 1; done".to_string()),
        // Format strings, with arguments right and wrong.
        (
            prop::sample::select(&["%d", "%s", "%5.2f", "%03d%%", "%S", "%x", "%", "%d %d"][..]),
            expr()
        )
            .prop_map(|(f, e)| format!("println$ f\"<{f}>\" {e};")),
        // Patterns.
        expr().prop_map(|e| format!(
            "println$ match {e} with | 0 => 1 | (u, w) => 2 | _ => 3 endmatch;"
        )),
        expr().prop_map(|e| format!("println$ match V {e} with | N => 0 | V v => 1 endmatch;")),
        expr().prop_map(|e| format!("val d1, d2 = {e}, {e};")),
        // Run-time shapes.
        expr().prop_map(|e| format!(
            "val m{n} = {e}; var b{n} : int ^ m{n}; println$ len b{n};",
            n = e.len()
        )),
        expr().prop_map(|e| format!("println$ filter (fun (y:int) => y > {e}) a;")),
        expr().prop_map(|e| format!(
            "val f{n} = filter (fun (y:int) => y < {e}) a; println$ \\sum f{n};",
            n = e.len()
        )),
    ]
}

fn program() -> impl Strategy<Value = String> {
    prop::collection::vec(statement(), 1..8).prop_map(|statements| {
        format!(
            "var x = 3;\nvar s = \"q\";\nvar c = `1:3 \\, `2:4;\nvar a = 1, 2, 3;\n\
             var r = (a=1, b=\"r\");\nstruct P {{ u: int; w: string; }}\n\
             variant W = | N | V of int;\nvar k : secret int = 7;\n{}\n",
            statements.join("\n")
        )
    })
}

/// Cases per property: 300, or `TESSERA_FUZZ_CASES`.
fn fuzz_cases() -> u32 {
    std::env::var("TESSERA_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(300)
}

proptest! {
    // `TESSERA_FUZZ_CASES` raises the number of cases for a fuzzing campaign.
    #![proptest_config(ProptestConfig { cases: fuzz_cases(), ..ProptestConfig::default() })]

    #[test]
    fn token_soups_never_crash(src in token_soup()) {
        run_bounded(&src)?;
    }

    #[test]
    fn random_programs_never_crash(src in program()) {
        run_bounded(&src)?;
    }

    #[test]
    fn truncated_programs_never_crash(src in program(), cut in 0.0f64..1.0) {
        let mut end = (src.len() as f64 * cut) as usize;
        while !src.is_char_boundary(end) {
            end -= 1;
        }
        run_bounded(&src[..end])?;
    }
}
