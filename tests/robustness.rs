//! "Never crash, never hang": every failure class the fuzzer found
//! (`../shared/robustness/crashes/`) as a regression test, run through the real binary with a
//! time and memory bound. The long reproducers are generated here, kept small where the limit
//! allows; each must end with its diagnostic (or run), never a panic, an abort or a hang.

mod support;

use std::time::{Duration, Instant};

use support::{run_tessera, Outcome, TIME_LIMIT};

/// Run `src` as a file; check the exit status and that `code` is reported (if given).
fn expect_file(name: &str, src: &str, status: i32, code: Option<&str>) -> Outcome {
    let dir = std::env::temp_dir().join(format!("tessera-robustness-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.flx"));
    std::fs::write(&path, src).unwrap();
    let outcome = run_tessera(&[path.to_str().unwrap()], b"");
    check_outcome(name, &outcome, status, code);
    outcome
}

/// Feed `src` to the REPL on stdin, going on past failed chunks (`--keep-going`: exit 0).
fn expect_repl(name: &str, src: &str, code: Option<&str>) -> Outcome {
    let outcome = run_tessera(&["--keep-going"], src.as_bytes());
    check_outcome(name, &outcome, 0, code);
    outcome
}

fn check_outcome(name: &str, outcome: &Outcome, status: i32, code: Option<&str>) {
    let head: String = outcome.stderr.chars().take(2000).collect();
    assert!(
        !outcome.stderr.contains("panicked") && !outcome.stderr.contains("memory allocation"),
        "{name}: crashed:\n{head}"
    );
    assert!(
        outcome.elapsed < TIME_LIMIT,
        "{name}: no answer in {:?}",
        outcome.elapsed
    );
    assert_eq!(
        outcome.status, status,
        "{name}: exit status; stderr:\n{head}"
    );
    if let Some(code) = code {
        assert!(
            outcome.stderr.contains(&format!("[{code}]")),
            "{name}: expected {code}; stderr:\n{head}"
        );
    }
    assert!(
        !outcome.stderr.contains("<?>") && !outcome.stdout.contains("<?>"),
        "{name}: an internal placeholder was printed"
    );
}

// ---------------------------------------------------------------------------------------------
// Panics
// ---------------------------------------------------------------------------------------------

#[test]
fn void_projection_before_initialisation_is_r0011() {
    let small = "fun g () : int => v.0 :>> int;\nprintln$ g ();\nval v = 0 :>> 2 \\* 0;\n";
    expect_file("void_small", small, 3, Some("R0011"));
    let big = "fun g () : natural => v.0 :>> natural;\nprintln$ g ();\n\
               val v = 0 :>> (2 \\^ 64) \\* 0;\n";
    expect_file("void_big", big, 3, Some("R0011"));
}

#[test]
fn repl_void_projection_after_a_failed_val_is_r0011() {
    let outcome = expect_repl(
        "repl_void",
        "var zero = 0;\nval v = zero :>> 3 \\* 0;\nv.0\n1 + 1\n",
        Some("R0002"),
    );
    assert!(outcome.stderr.contains("[R0011]"), "{}", outcome.stderr);
    assert!(outcome.stdout.contains('2'), "the session goes on");
}

#[test]
fn a_million_parentheses_are_e0102() {
    let n = 1_000_000;
    let src = format!("println$ {}1{};\n", "(".repeat(n), ")".repeat(n));
    expect_file("deep_parens", &src, 1, Some("E0102"));
}

// ---------------------------------------------------------------------------------------------
// Allocations
// ---------------------------------------------------------------------------------------------

#[test]
fn growing_strings_and_naturals_are_r0007() {
    let doubling = "var s = \"ab\";\nfor i in 0 ..< 40 do s = s + s; done\nprintln$ len s;\n";
    expect_file("string_doubling", doubling, 3, Some("R0007"));
    let repeat = "println$ len (\"ab\" * 2000000000);\n";
    expect_file("string_repeat", repeat, 3, Some("R0007"));
    let squaring = "var n = 2 :>> natural;\nfor i in 0 ..< 40 do n = n * n; done\n\
                    println$ n > (0 :>> natural);\n";
    expect_file("natural_squaring", squaring, 3, Some("R0007"));
}

#[test]
fn deep_tuples_and_lambdas_are_e0102() {
    let n = 100_000;
    let tuples = format!("println$ {}1{};\n", "(1, ".repeat(n), ")".repeat(n));
    expect_file("deep_tuples", &tuples, 1, Some("E0102"));
    let n = 5_000;
    let lambdas = format!(
        "println$ {}x{} 1;\n",
        "(fun (x:int) => ".repeat(n),
        ")".repeat(n)
    );
    expect_file("deep_lambdas", &lambdas, 1, Some("E0102"));
}

#[test]
fn nesting_at_the_limit_runs() {
    let n = tessera::limits::DEFAULT_MAX_NESTING as usize;
    let tuples = format!("println$ {}1{};\n", "(1, ".repeat(n - 1), ")".repeat(n - 1));
    let outcome = expect_file("tuples_at_limit", &tuples, 0, None);
    assert!(outcome.stdout.starts_with("(1, (1, "));
}

// ---------------------------------------------------------------------------------------------
// Exponential or quadratic static phases
// ---------------------------------------------------------------------------------------------

fn doubling_typedefs(levels: usize, body: &str) -> String {
    let mut src = String::from("typedef T0 = 2;\n");
    for level in 1..=levels {
        src.push_str(&format!(
            "typedef T{level} = {};\n",
            body.replace("P", &format!("T{}", level - 1))
        ));
    }
    src
}

#[test]
fn typedef_chains_that_double_are_linear() {
    let mut hang = doubling_typedefs(40, "P * P * int");
    hang.push_str("var x : T40;\nprintln$ 1;\n");
    // The zero value of T40 has 2^40 leaves: R0007 when it is built, not a hang.
    let outcome = run_tessera(&["check", &write_temp("typedef_hang", &hang)], b"");
    check_outcome("typedef_hang", &outcome, 0, None);
    let mut abort = doubling_typedefs(40, "P * P * int");
    abort.push_str("fun f (x:string) => x;\nvar t : T40;\nprintln$ f t;\n");
    let outcome = expect_file("typedef_abort", &abort, 1, Some("E0301"));
    assert!(
        outcome.stderr.len() < 100_000,
        "{} bytes",
        outcome.stderr.len()
    );
}

#[test]
fn iso_of_doubling_types_is_bounded() {
    let mut src = String::from("typedef T0 = int;\n");
    for level in 1..=40 {
        src.push_str(&format!(
            "typedef T{level} = T{} ^ 2 * string;\n",
            level - 1
        ));
    }
    src.push_str("var x : T40;\nval y = x :>> int ^ 2;\n");
    let outcome = expect_file("iso_doubling", &src, 1, Some("E0500"));
    assert!(
        outcome.stderr.len() < 100_000,
        "{} bytes",
        outcome.stderr.len()
    );
}

#[test]
fn long_typedef_chains_and_cpow_chains_are_fast() {
    let mut linear = String::from("typedef T0 = int;\n");
    for level in 1..=20_000 {
        linear.push_str(&format!("typedef T{level} = T{} * string;\n", level - 1));
    }
    linear.push_str("println 1;\n");
    expect_file("typedef_linear", &linear, 0, None);
    let cpow = format!("var x : {}2;\nprintln 1;\n", "2 \\^ ".repeat(100_000));
    expect_file("cpow_chain", &cpow, 1, Some("E0301"));
}

#[test]
fn unclosed_blocks_are_reported_fast() {
    for (name, opener) in [
        ("unclosed_parens", "("),
        ("unclosed_match", "match 1 with | _ => "),
        ("unclosed_for", "for i in 0 ..< 2 do "),
        ("unclosed_begin", "begin "),
        ("unclosed_brace", "{"),
    ] {
        let src = format!("println$ {}1\n", opener.repeat(20_000));
        expect_file(name, &src, 1, Some("E0102"));
        // Just under the limit: an ordinary syntax error, still fast.
        let under = tessera::limits::DEFAULT_MAX_NESTING as usize - 10;
        let src = format!("println$ {}1\n", opener.repeat(under));
        expect_file(name, &src, 1, Some("E0100"));
    }
}

#[test]
fn error_floods_are_capped_and_lines_windowed() {
    let chain = format!("println$ 1{};\n", " and 1".repeat(10_000));
    let outcome = expect_file("error_flood", &chain, 1, Some("E0301"));
    assert!(
        outcome.stderr.len() < 100_000,
        "{} bytes",
        outcome.stderr.len()
    );
    assert!(outcome.stderr.contains("more errors not shown"));
    let many: String = (0..50_000).map(|i| format!("println u{i};\n")).collect();
    let outcome = expect_file("many_errors", &many, 1, Some("E0201"));
    assert_eq!(outcome.stderr.matches("[E0201]").count(), 20);
    assert!(outcome.stderr.contains("… and 49980 more errors"));
}

// ---------------------------------------------------------------------------------------------
// Internal errors and placeholders
// ---------------------------------------------------------------------------------------------

#[test]
fn hoisted_values_used_before_initialisation_are_r0011() {
    let call = "fun g (y:int) : int => h y;\nprintln$ g 3;\n\
                val h : int -> int = fun (x:int) => x + 1;\n";
    let outcome = expect_file("call_before_init", call, 3, Some("R0011"));
    assert!(outcome.stderr.contains("`h` is defined here"));
    let matched = "variant V = | A of int | B;\n\
                   fun g () : int => match v with | A k => k | B => 7 endmatch;\n\
                   println$ g ();\nval v : V = A 3;\n";
    expect_file("match_before_init", matched, 3, Some("R0011"));
    // Read after the initialiser ran: fine.
    let fine = "val h : int -> int = fun (x:int) => x + 1;\n\
                fun g (y:int) : int => h y;\nprintln$ g 3;\n";
    let outcome = expect_file("call_after_init", fine, 0, None);
    assert_eq!(outcome.stdout, "4\n");
}

#[test]
fn repl_failed_initialiser_is_read_as_r0011() {
    let src = "var zero = 0;\nval q : int = 1 / zero;\nq + 1\n\
               var a : int ^ (1000000 \\* 1000000);\nlen a\n\
               val h : int -> int = if 1 / zero == 0 then (fun (x:int) => x) else (fun (x:int) => x) endif;\n\
               h 3\nval q = 5;\nq + 1\n";
    let outcome = expect_repl("repl_failed_init", src, Some("R0004"));
    assert!(outcome.stderr.contains("[R0007]"));
    // A chunk that failed at run time keeps its definitions; a `val` whose initialiser never
    // ran is R0011 when read (`len a` needs only the type).
    assert_eq!(
        outcome.stderr.matches("[R0011]").count(),
        2,
        "{}",
        outcome.stderr
    );
    assert!(outcome.stdout.contains("6 : int"), "{}", outcome.stdout);
}

#[test]
fn big_compact_array_projection_runs() {
    let src = "var x : 2 \\^ 65537;\nprintln$ x.0;\nprintln$ x.65536;\n";
    let outcome = expect_file("big_carray", src, 0, None);
    assert_eq!(outcome.stdout, "false\nfalse\n");
}

// ---------------------------------------------------------------------------------------------
// Options and the REPL
// ---------------------------------------------------------------------------------------------

#[test]
fn huge_thread_counts_are_a_usage_error() {
    let path = write_temp("threads", "println 1;\n");
    let outcome = run_tessera(&["--threads", "100000", &path], b"");
    assert_eq!(outcome.status, 2, "{}", outcome.stderr);
    assert!(outcome.stderr.contains("at most"), "{}", outcome.stderr);
    assert!(outcome.elapsed < Duration::from_secs(5));
    let outcome = run_tessera(&["--threads", "2", &path], b"");
    assert_eq!((outcome.status, outcome.stdout.as_str()), (0, "1\n"));
}

#[test]
fn a_repl_chunk_typed_over_thousands_of_lines_is_fast() {
    let mut src = String::from("(1\n");
    for _ in 0..4000 {
        src.push_str(", 1\n");
    }
    src.push_str(")\n");
    let start = Instant::now();
    let outcome = expect_repl("repl_multiline", &src, None);
    assert!(
        outcome.stdout.contains(": int ^ 4001"),
        "{}",
        outcome.stdout
    );
    assert!(start.elapsed() < Duration::from_secs(15));
}

#[test]
fn limit_flags_change_the_limits() {
    let path = write_temp("nesting_flag", "println$ ((((1))));\n");
    let outcome = run_tessera(&["--max-nesting", "8", &path], b"");
    assert_eq!(outcome.status, 0, "{}", outcome.stderr);
    let path = write_temp("nesting_flag2", "println$ (((((((((1)))))))));\n");
    let outcome = run_tessera(&["--max-nesting", "8", &path], b"");
    assert_eq!(outcome.status, 1, "{}", outcome.stderr);
    assert!(outcome.stderr.contains("[E0102]"));
    let path = write_temp("errors_flag", "println a;\nprintln b;\nprintln c;\n");
    let outcome = run_tessera(&["--max-errors", "1", &path], b"");
    assert_eq!(outcome.stderr.matches("[E0201]").count(), 1);
    assert!(outcome.stderr.contains("… and 2 more errors"));
}

#[test]
fn non_utf8_source_is_e0103() {
    let dir = std::env::temp_dir().join(format!("tessera-robustness-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("binary.flx");
    std::fs::write(&path, b"println 1;\n\xff\xfe\x00 println 2;\n").unwrap();
    let outcome = run_tessera(&[path.to_str().unwrap()], b"");
    check_outcome("non_utf8", &outcome, 1, Some("E0103"));
    assert!(outcome.stderr.contains(":2:1"), "{}", outcome.stderr);
}

fn write_temp(name: &str, src: &str) -> String {
    let dir = std::env::temp_dir().join(format!("tessera-robustness-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.flx"));
    std::fs::write(&path, src).unwrap();
    path.to_str().unwrap().to_string()
}

// ---------------------------------------------------------------------------------------------
// Round 3: placeholders, internal types, polymorphic recursion, the stack
// ---------------------------------------------------------------------------------------------

#[test]
fn a_missing_return_is_e0304_not_a_placeholder() {
    let src = "fun f (x:int) : string = { if x > 0 return \"pos\"; }\nprintln$ f 0, len (f 0);\n\
               fun g (x:int) : int = { if x > 0 return 1; }\nprintln$ 10 / g 0;\n";
    expect_file("missing_return", src, 1, Some("E0304"));
}

#[test]
fn uses_through_pointers_before_the_declaration_are_r0011() {
    let read = "println$ *(&a), *(&a) + 1;\nvar a = 3;\n";
    expect_file("pointer_read_before_init", read, 3, Some("R0011"));
    let fused = "for i in ..[3] do &a.i <- 1; done\nvar a : int ^ 3;\n";
    expect_file("fused_store_before_init", fused, 3, Some("R0011"));
    let matched = "variant V = | A of int | B;\nfun g () : int => match v with | A k => k | B => 7 endmatch;\n\
                   println$ g ();\nval v : V = A 3;\n";
    expect_file("match_before_init", matched, 3, Some("R0011"));
}

#[test]
fn no_internal_type_in_cascading_errors() {
    let src = "fun id (p:(a:int)) => p;\nprintln$ id (a=1, b=nope), rev (1, nope);\n";
    let outcome = expect_file("error_type_leak", src, 1, Some("E0201"));
    assert!(
        !outcome.stderr.contains("?4294967295"),
        "{}",
        outcome.stderr
    );
    assert!(!outcome.stderr.contains("[E0301]"), "{}", outcome.stderr);
}

#[test]
fn polymorphic_recursion_is_a_static_error() {
    let pairs = "fun f[T] (x:T) : int => f (x, x);\nprintln$ f 1;\n";
    expect_file("polymorphic_recursion", pairs, 1, Some("E0301"));
    let boxes = "struct Box[T] { v: T; }\n\
                 fun g[T] (n:int, x:T) : int => if n == 0 then 0 else g (n - 1, Box (x)) endif;\n\
                 println$ g (1, 1);\n";
    expect_file("polymorphic_recursion_struct", boxes, 1, Some("E0301"));
    let outcome = expect_repl(
        "polymorphic_recursion_repl",
        &format!("{pairs}1 + 1\n"),
        Some("E0301"),
    );
    assert!(outcome.stdout.contains('2'), "the session goes on");
}

#[test]
fn a_raised_call_depth_stops_at_the_stack_limit() {
    let path = write_temp(
        "raised_call_depth",
        "fun r (n:int) : int => if n <= 0 then 0 else 1 + r (n - 1) endif;\nprintln$ r 10000000;\n",
    );
    let args = [
        "--max-call-depth",
        "20000000",
        "--max-stack",
        "67108864",
        &path,
    ];
    let outcome = run_tessera(&args, b"");
    check_outcome("raised_call_depth", &outcome, 3, Some("R0008"));
    assert!(outcome.stderr.contains("--max-stack"), "{}", outcome.stderr);
}

#[test]
fn struct_zero_values_are_shared_and_cycles_have_none() {
    let mut chain = String::from("struct S0 { a:int; }\n");
    for i in 1..=40 {
        chain += &format!("struct S{i} {{ l:S{}; r:S{}; }}\n", i - 1, i - 1);
    }
    chain += "var x : S40;\nprintln 1;\n";
    let outcome = expect_file("struct_zero_chain", &chain, 0, None);
    assert_eq!(outcome.stdout, "1\n");
    expect_file(
        "struct_self",
        "struct S { a: S; }\nvar x : S;\n",
        1,
        Some("E0301"),
    );
    let mutual = "struct A { b: B; }\nstruct B { a: A; }\nvar x : A;\n";
    expect_file("struct_mutual", mutual, 1, Some("E0301"));
}

#[test]
fn large_destructurings_work() {
    let n = 5000;
    let names: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
    let values: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    let src = format!(
        "val {} = {};\nprintln$ a4999;\n",
        names.join(", "),
        values.join(", ")
    );
    let outcome = expect_file("destructure_5000", &src, 0, None);
    assert_eq!(outcome.stdout, "4999\n");
}

#[test]
fn the_line_width_limit_cuts_a_wide_underline() {
    let src = format!("val x : string = {}1;\n", "1 + ".repeat(8000));
    let outcome = expect_file("wide_span", &src, 1, Some("E0301"));
    assert!(
        outcome.stderr.len() < 4000,
        "{} bytes of stderr",
        outcome.stderr.len()
    );
    assert!(outcome.stderr.contains(":1:18"), "{}", outcome.stderr);
}

#[test]
fn layout_of_many_big_digits_is_bounded() {
    let outcome = expect_repl("layout_big", ":layout 4294967295 \\^ 8000\n", None);
    assert!(
        outcome.stdout.len() < 100_000,
        "{} bytes",
        outcome.stdout.len()
    );
    assert!(
        outcome.stdout.contains("size ≈4.774074262e+77063"),
        "{}",
        &outcome.stdout[..200.min(outcome.stdout.len())]
    );
    assert!(outcome.stdout.contains("(7488 more)"));
}

#[test]
fn the_text_of_a_value_with_shared_leaves_is_bounded() {
    let mut chain = String::from("typedef T0 = int;\n");
    for i in 1..=40 {
        chain += &format!("typedef T{i} = T{} ^ 2 * int;\n", i - 1);
    }
    let str_of = format!("{chain}var x : T40;\nprintln$ len (str x);\n");
    expect_file("str_huge", &str_of, 3, Some("R0007"));
    let printed = format!("{chain}var x : T40;\nprintln$ x;\n");
    expect_file("println_huge", &printed, 3, Some("R0007"));
    let mut structs = String::from("struct S0 { a:int; }\n");
    for i in 1..=40 {
        structs += &format!("struct S{i} {{ l:S{}; r:S{}; }}\n", i - 1, i - 1);
    }
    structs += "var x : S40;\nprintln$ len x._strr;\n";
    expect_file("strr_huge_struct", &structs, 3, Some("R0007"));
}

// ---------------------------------------------------------------------------------------------
// The memory budget and the quadratic corners
// ---------------------------------------------------------------------------------------------

#[test]
fn kernels_past_the_memory_budget_are_r0007() {
    // The tests run under `ulimit -v` 1 GiB, so the budget is 128 MiB: the array (80 MB, an
    // `int` takes 4 bytes) fits, a second one as large does not, and each kernel says so
    // before it allocates.
    let decl = "var a : int ^ 20000000;\n&a.0 <- 1;\n";
    for kernel in [
        "map (fun (x:int) => x + 1) a",
        "rev a",
        "sort a",
        "rev_map (fun (x:int) => x + 1) a",
    ] {
        let src = format!("{decl}val b = {kernel};\nprintln$ b.0;\n");
        expect_file("kernel_budget", &src, 3, Some("R0007"));
    }
}

#[test]
fn growth_in_small_steps_stops_at_the_memory_budget() {
    let path = write_temp(
        "list_budget",
        "variant L = | Nil | Cons of int * L;\nvar t = Nil;\n\
         for i in 0 ..< 100000000 do t = Cons (i, t); done\nprintln 1;\n",
    );
    for jit in [&[][..], &["--no-jit"][..]] {
        let mut args = jit.to_vec();
        args.extend(["--max-memory", "100000000", &path]);
        let outcome = run_tessera(&args, b"");
        check_outcome("list_budget", &outcome, 3, Some("R0007"));
        assert!(
            outcome.stderr.contains("--max-memory"),
            "{}",
            outcome.stderr
        );
    }
}

/// Seconds `tessera ARGS FILE` takes on the source `src`.
fn seconds(name: &str, args: &[&str], src: &str) -> f64 {
    let path = write_temp(name, src);
    let mut all = args.to_vec();
    all.push(&path);
    let outcome = run_tessera(&all, b"");
    check_outcome(name, &outcome, 0, None);
    outcome.elapsed.as_secs_f64()
}

/// Growth from size `n` to `4 n` must be far from quadratic: the time at `4 n` stays under 8
/// times the time at `n` (16 would be quadratic), with half a second for a noisy machine.
fn assert_linear(name: &str, args: &[&str], make: impl Fn(usize) -> String, n: usize) {
    let small = seconds(name, args, &make(n));
    let large = seconds(name, args, &make(4 * n));
    assert!(
        large < 8.0 * small + 0.5,
        "{name}: {small:.2} s at {n}, {large:.2} s at {}",
        4 * n
    );
}

#[test]
fn empty_statements_cost_linear_time() {
    assert_linear(
        "empty_statements",
        &["check"],
        |n| ";".repeat(n) + "\n",
        200_000,
    );
}

#[test]
fn printing_a_deep_variant_is_linear() {
    let make = |n: usize| {
        format!(
            "variant L = | Nil | Cons of int * L;\nvar t = Nil;\n\
             for i in 0 ..< {n} do t = Cons (i, t); done\nprintln$ len (str t);\n"
        )
    };
    assert_linear("deep_variant_print", &[], make, 20_000);
}

#[test]
fn secret_instances_of_a_call_chain_are_checked_once() {
    let make = |levels: usize| {
        let mut src = String::from("fun f0 (a:int, b:int) : int => a + b;\n");
        for i in 1..=levels {
            src += &format!(
                "fun f{i} (a:int, b:int) : int => f{j} (a, b) + f{j} (b, a);\n",
                j = i - 1
            );
        }
        src + &format!("var s : secret int = 1;\nprintln$ reveal (f{levels} (s, 2));\n")
    };
    // Exponential checking doubles per level: 4 times the levels would be 2^36 times slower.
    assert_linear("secret_chain", &["check"], make, 10);
}

#[test]
fn long_top_levels_compile_in_linear_time() {
    // Native code compiles a unit's top level in pieces of bounded size: one function for
    // thousands of statements would cost Cranelift's register allocator quadratic time.
    let make = |n: usize| {
        let mut src = String::from("fun id[T] (x:T) => x;\nvar s = 0;\n");
        for i in 0..n {
            src += &format!("s = s * 3 % 1000003 + id {i};\nprintln$ id s;\n");
        }
        src
    };
    assert_linear("long_top_level", &[], make, 1000);
}

#[test]
fn long_function_bodies_compile_in_linear_time() {
    // A function too large for Cranelift's superlinear compile time runs on closures.
    let make = |n: usize| {
        let mut src = String::from("fun id[T] (x:T) => x;\nvar s = 0;\nproc p () {\n");
        for i in 0..n {
            src += &format!("  s = s + id {i};\n");
        }
        src + "}\np ();\nprintln$ s;\n"
    };
    assert_linear("long_function", &[], make, 1500);
}

#[test]
fn naturals_past_the_default_bound_stop_before_their_slow_operations() {
    // Division and the conversion to decimal take quadratic time in a natural's size; the
    // default `--max-natural-bits` stops the squaring that would pass it, before any of them.
    let src = "var n = 3 :>> natural;\nfor i in 0 ..< 23 do n = n * n; done\n\
               println$ len (str n);\n";
    let outcome = expect_file("natural_bound", src, 3, Some("R0007"));
    assert!(
        outcome.stderr.contains("--max-natural-bits"),
        "{}",
        outcome.stderr
    );
}

#[test]
fn reading_every_digit_of_a_big_code_is_linear() {
    // A big compact array code is expanded into limbs once; each digit read is then constant
    // time, where dividing the whole code by the digit's weight made the loop superlinear.
    let make = |n: usize| {
        format!(
            "val z = ((7 :>> natural) + (2 :>> natural)) :>> (3 \\^ {n});\nvar s = 0;\n\
             for i in ..[{n}] do s = s + (z.i :>> int); done\nprintln s;\n"
        )
    };
    assert_linear("big_code_digit_reads", &[], make, 20_000);
}

#[test]
fn storing_every_digit_of_a_big_code_is_at_most_quadratic() {
    // A store into a big code changes its limbs in constant time and the code itself in time
    // linear in its size (`code + (new - old) * weight`): a loop over every digit is
    // quadratic in word operations (16 times from n to 4 n), where a division of the whole
    // code per store made it cubic (64 times).
    let make = |n: usize| {
        format!(
            "var x : 3 \\^ {n};\nfor i in ..[{n}] do &x.i <- `2:3; done\n\
             println$ len (str (x :>> natural));\n"
        )
    };
    let n = 10_000;
    let small = seconds("big_code_digit_stores", &[], &make(n));
    let large = seconds("big_code_digit_stores", &[], &make(4 * n));
    assert!(
        large < 32.0 * small + 0.5,
        "digit stores: {small:.2} s at {n}, {large:.2} s at {}",
        4 * n
    );
}

#[test]
fn long_straight_line_top_levels_run_on_closures_in_linear_time() {
    // Thousands of generic calls at the top level: checked in linear time (an overload's
    // snapshot of the inference variables is not a copy of them all), and run without
    // compiling them to native code, each statement running once.
    let make = |n: usize| {
        let mut src = String::from("fun id[T] (x:T) => x;\n");
        for i in 0..n {
            src += &format!("println$ id {i};\n");
        }
        src
    };
    assert_linear("generic_calls", &[], make, 5000);
    let outcome = run_tessera(&["--jit-report", &write_temp("straight", &make(3000))], b"");
    check_outcome("straight", &outcome, 0, None);
    let report = outcome.stdout + &outcome.stderr;
    assert!(
        report.contains("without a loop run once"),
        "no straight-line note in the report:\n{}",
        &report[report.len().saturating_sub(2000)..]
    );
}
