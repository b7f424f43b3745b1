//! Every parallel path (spec L9.5) gives bit-identical results with 1 and 2 worker threads:
//! each program runs in the real binary with `RAYON_NUM_THREADS=1` and `=2` (and `--threads`),
//! and stdout, stderr and the exit status must be the same. The arrays are larger than the
//! parallel threshold, so the 2-thread runs really split the work.

use std::path::PathBuf;
use std::process::{Command, Output};

/// Run `source` with the given thread count (through the environment or the flag).
fn run(name: &str, source: &str, threads: usize, by_flag: bool) -> Output {
    run_with(name, source, threads, by_flag, &[])
}

/// `run` with more options before `run` (`--no-inline`).
fn run_with(name: &str, source: &str, threads: usize, by_flag: bool, extra: &[&str]) -> Output {
    let dir = std::env::temp_dir().join(format!("tessera-parallel-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary folder");
    let file: PathBuf = dir.join(format!("{name}.flx"));
    std::fs::write(&file, source).expect("write the program");
    let mut command = Command::new(env!("CARGO_BIN_EXE_tessera"));
    if by_flag {
        command.env_remove("RAYON_NUM_THREADS");
        command.args(["--threads", &threads.to_string()]);
    } else {
        command.env("RAYON_NUM_THREADS", threads.to_string());
    }
    command.args(extra).arg("run").arg(&file);
    command.output().expect("run the tessera binary")
}

/// Run with 1 and 2 threads (both ways of setting them), check the outputs are identical, and
/// return the 1-thread output.
fn same_on_one_and_two_threads(name: &str, source: &str) -> Output {
    let one = run(name, source, 1, false);
    for (threads, by_flag) in [(2, false), (2, true), (1, true)] {
        let other = run(name, source, threads, by_flag);
        assert_eq!(
            String::from_utf8_lossy(&one.stdout),
            String::from_utf8_lossy(&other.stdout),
            "{name}: stdout differs with {threads} threads"
        );
        assert_eq!(
            String::from_utf8_lossy(&one.stderr),
            String::from_utf8_lossy(&other.stderr),
            "{name}: stderr differs with {threads} threads"
        );
        assert_eq!(
            one.status.code(),
            other.status.code(),
            "{name}: exit status"
        );
    }
    one
}

/// `same_on_one_and_two_threads`, and the same output again with `--no-inline` (on 2
/// threads), where every `fold_left` calls its function element by element: the sequential
/// fold that the split one must match exactly.
fn same_as_the_sequential_fold(name: &str, source: &str) -> Output {
    let one = same_on_one_and_two_threads(name, source);
    let called = run_with(name, source, 2, false, &["--no-inline"]);
    assert_eq!(
        String::from_utf8_lossy(&one.stdout),
        String::from_utf8_lossy(&called.stdout),
        "{name}: stdout differs from the fold by calls"
    );
    assert_eq!(
        String::from_utf8_lossy(&one.stderr),
        String::from_utf8_lossy(&called.stderr),
        "{name}: stderr differs from the fold by calls"
    );
    assert_eq!(
        one.status.code(),
        called.status.code(),
        "{name}: exit status"
    );
    one
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn integer_sum_of_a_large_array() {
    let out = same_on_one_and_two_threads(
        "sum",
        "typedef N = 300000;\n\
         var a : long ^ N;\n\
         for i in ..[N] do &a.i <- (i :>> long) * 3L - 7L; done\n\
         println$ \\sum a;\n",
    );
    let n: i64 = 300_000;
    let expected: i64 = (0..n).map(|i| i * 3 - 7).sum();
    assert_eq!(stdout(&out), format!("{expected}\n"));
    assert!(out.status.success());
}

#[test]
fn integer_sum_overflow_is_the_sequential_one() {
    // The prefix sums pass the long range near element 136 000, in the fifth block; the total
    // never comes back, and the fault must be the one of the left fold at that element.
    let out = same_on_one_and_two_threads(
        "sum_overflow",
        "typedef N = 300000;\n\
         var a : long ^ N;\n\
         for i in ..[N] do &a.i <- (i :>> long) * 1000000000L; done\n\
         println \"before\";\n\
         println$ \\sum a;\n",
    );
    assert_eq!(stdout(&out), "before\n");
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("R0003"), "{stderr}");
    // The message carries the operands of the failing addition: the prefix sum before it and
    // the element, exactly as the sequential fold sees them.
    let mut acc: i64 = 0;
    let mut failing = None;
    for i in 0..300_000i64 {
        match acc.checked_add(i * 1_000_000_000) {
            Some(next) => acc = next,
            None => {
                failing = Some((acc, i * 1_000_000_000));
                break;
            }
        }
    }
    let (acc, element) = failing.expect("the fold overflows");
    assert!(
        stderr.contains(&format!("{acc} + {element}")),
        "{stderr} should name {acc} + {element}"
    );
}

#[test]
fn map_of_a_pure_function() {
    let out = same_on_one_and_two_threads(
        "map",
        "typedef N = 200000;\n\
         var a : long ^ N;\n\
         for i in ..[N] do &a.i <- (i :>> long); done\n\
         fun f (x:long) : long => (x * x + 3L * x + 1L) % 1000003L;\n\
         val b = map f a;\n\
         println$ \\sum b;\n\
         println$ b.199999;\n\
         var d : double ^ N;\n\
         for i in ..[N] do &d.i <- double ((i :>> int) % 7) * 0.5; done\n\
         fun g (x:double) : double => x * 0.25 + 1.0;\n\
         val e = map g d;\n\
         println$ \\sum e;\n",
    );
    let expected: i64 = (0..200_000i64)
        .map(|x| (x * x + 3 * x + 1) % 1_000_003)
        .sum();
    let last = (199_999i64 * 199_999 + 3 * 199_999 + 1) % 1_000_003;
    let lines: Vec<String> = stdout(&out).lines().map(str::to_owned).collect();
    assert_eq!(lines[0], expected.to_string());
    assert_eq!(lines[1], last.to_string());
    assert_eq!(lines.len(), 3);
}

#[test]
fn map_reports_the_fault_at_the_lowest_position() {
    // Division by zero at elements 200 000 and 250 000 (different chunks, maybe different
    // threads) and overflow from about 55 000 on: the overflow at the lowest element wins.
    let out = same_on_one_and_two_threads(
        "map_fault",
        "typedef N = 300000;\n\
         var a : long ^ N;\n\
         for i in ..[N] do &a.i <- (i :>> long); done\n\
         fun h (x:long) : long =>\n\
           1000000L / (x - 200000L) + 1000000L / (x - 250000L) + x * x * x * x;\n\
         val b = map h a;\n\
         println$ \\sum b;\n",
    );
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("R0003"), "{stderr}");
    assert!(!stderr.contains("R0004"), "{stderr}");
}

#[test]
fn map_division_by_zero_in_a_later_chunk() {
    let out = same_on_one_and_two_threads(
        "map_zero",
        "typedef N = 300000;\n\
         var a : long ^ N;\n\
         for i in ..[N] do &a.i <- (i :>> long); done\n\
         fun h (x:long) : long => 1000000L / (x - 250000L) + 1000000L / (x - 200000L);\n\
         println \"start\";\n\
         val b = map h a;\n\
         println$ \\sum b;\n",
    );
    assert_eq!(stdout(&out), "start\n");
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("R0004"), "{stderr}");
    // The first faulting element is 200 000, in the second division: its operands are shown.
    assert!(stderr.contains("1000000 / 0"), "{stderr}");
}

#[test]
fn double_sums_transpose_and_fused_stores() {
    let out = same_on_one_and_two_threads(
        "rows",
        "typedef R = 300;\n\
         typedef C = 400;\n\
         var a : double ^ (R \\* C);\n\
         for k in ..[R \\* C] do &a.k <- double ((k :>> int) % 7) * 0.1; done\n\
         val rows = a :>> double ^ C ^ R;\n\
         val sums = map (fun (r:double ^ C) => \\sum r) rows;\n\
         println$ sums.0, sums.299, \\sum (a :>> double ^ 120000);\n\
         var m : long ^ (R \\* C);\n\
         for k in ..[R \\* C] do &m.k <- (k :>> long); done\n\
         val t = transpose m;\n\
         var s = 0L;\n\
         for k in ..[C \\* R] do s = s + t.k * ((k :>> long) % 13L); done\n\
         println s;\n",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The transposed checksum, computed here directly.
    let (rows, cols) = (300i64, 400i64);
    let mut expected = 0i64;
    for k in 0..rows * cols {
        let (j, i) = (k / rows, k % rows);
        expected += (i * cols + j) * (k % 13);
    }
    let lines: Vec<String> = stdout(&out).lines().map(str::to_owned).collect();
    assert_eq!(lines[1], expected.to_string());
}

#[test]
fn fused_store_loop_faults_like_the_sequential_loop() {
    // The store loop stops at the first element whose value overflows; the elements before it
    // are stored (the REPL would see them) and the error names that element's operands.
    let out = same_on_one_and_two_threads(
        "store_fault",
        "typedef N = 100000;\n\
         var a : int ^ N;\n\
         for i in ..[N] do &a.i <- (i :>> int) * 40000; done\n",
    );
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    // 53 688 * 40 000 is the first product past 2^31 - 1.
    assert!(stderr.contains("53688 * 40000"), "{stderr}");
}

#[test]
fn fold_left_of_integer_plus() {
    // Every form of `fold_left` whose function is integer `+` (a lambda, a named curried
    // function, a generic one, a partial application with more terms, an `int` body, a
    // `ulong` body, a start value that is not zero) and the loop forms it becomes.
    let out = same_as_the_sequential_fold(
        "fold",
        "typedef N = 300000;\n\
         var a : long ^ N;\n\
         for i in ..[N] do &a.i <- (i :>> long) * 3L - 7L; done\n\
         println$ fold_left (fun (acc:long) (v:long) => acc + v) 0L a;\n\
         fun add (x:long) (y:long) => x + y;\n\
         println$ fold_left add 1000L a;\n\
         fun sum_of[I:COMPACTLINEAR] (xs:long ^ I) => fold_left add 0L xs;\n\
         println$ sum_of a;\n\
         fun weighted (w:long) (acc:long) (v:long) => acc + w * v + 1L;\n\
         println$ fold_left (weighted 3L) (-5L) a;\n\
         var b : int ^ N;\n\
         for i in ..[N] do &b.i <- (i :>> int) % 100 - 20; done\n\
         println$ fold_left (fun (s:int) (x:int) => s + x) 0 b;\n\
         var u : ulong ^ N;\n\
         for i in ..[N] do &u.i <- (i :>> long).ulong * 1000000UL; done\n\
         println$ fold_left (fun (s:ulong) (x:ulong) => s + x) 0UL u;\n\
         var s = 0L;\n\
         for v in a do s = s + v; done\n\
         println s;\n\
         var t = 0L;\n\
         for i in ..[N] do t = t + (i :>> long) + 2L; done\n\
         println t;\n",
    );
    let n: i64 = 300_000;
    let a: Vec<i64> = (0..n).map(|i| i * 3 - 7).collect();
    let sum: i64 = a.iter().sum();
    let weighted: i64 = -5 + a.iter().map(|v| 3 * v + 1).sum::<i64>();
    let ints: i64 = (0..n).map(|i| i % 100 - 20).sum();
    let ulongs: u64 = (0..n as u64).map(|i| i * 1_000_000).sum();
    let counted: i64 = (0..n).map(|i| i + 2).sum();
    let expected = [
        sum.to_string(),
        (sum + 1000).to_string(),
        sum.to_string(),
        weighted.to_string(),
        ints.to_string(),
        ulongs.to_string(),
        sum.to_string(),
        counted.to_string(),
    ];
    let lines: Vec<String> = stdout(&out).lines().map(str::to_owned).collect();
    assert_eq!(lines, expected);
    assert!(out.status.success());
}

#[test]
fn fold_left_overflow_is_the_sequential_one() {
    // A prefix passes the long range in the middle (element 140 000, the fifth block) and
    // comes back below it later, so the total fits: the fold must fault there anyway, with
    // the operands the sequential fold adds and the lambda's frame in the call stack.
    let out = same_as_the_sequential_fold(
        "fold_overflow",
        "typedef N = 300000;\n\
         var a : long ^ N;\n\
         for i in ..[N] do &a.i <- 0L; done\n\
         &a.(100000 :>> N) <- 9223372036854775000L;\n\
         &a.(140000 :>> N) <- 1000L;\n\
         &a.(200000 :>> N) <- -5000L;\n\
         println$ fold_left (fun (acc:long) (v:long) => acc + v) 0L a - 1L;\n\
         println \"not reached\";\n",
    );
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(stdout(&out), "");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("R0003"), "{stderr}");
    assert!(stderr.contains("9223372036854775000 + 1000"), "{stderr}");
    assert!(stderr.contains("in an anonymous function"), "{stderr}");
}

#[test]
fn fold_left_overflow_from_the_start_value() {
    // The elements alone never overflow an int; from the start value, the fold passes the
    // range at element 70 000 (in the third block of 32 768).
    let out = same_as_the_sequential_fold(
        "fold_init",
        "typedef N = 200000;\n\
         var b : int ^ N;\n\
         for i in ..[N] do &b.i <- 10000; done\n\
         fun plus (s:int) (x:int) => s + x;\n\
         println$ fold_left plus 0 b;\n\
         println$ fold_left plus 1447483647 b;\n",
    );
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(stdout(&out), "2000000000\n");
    let stderr = String::from_utf8_lossy(&out.stderr);
    // 1 447 483 647 + 70 000 * 10 000 = 2 147 483 647, the largest int: the next add faults.
    assert!(stderr.contains("2147483647 + 10000"), "{stderr}");
    assert!(stderr.contains("in `plus`"), "{stderr}");
}

#[test]
fn fold_left_term_fault_before_an_overflow() {
    // A division by zero in the term at element 250 000 and an overflow of the sum after it:
    // the fold stops at the division (the first fault in order), not at the later overflow.
    // A second fold has the overflow first (element 120 000) and the division later.
    let out = same_as_the_sequential_fold(
        "fold_term_fault",
        "typedef N = 300000;\n\
         var a : long ^ N;\n\
         for i in ..[N] do &a.i <- (i :>> long); done\n\
         fun f (acc:long) (v:long) =>\n\
           acc + 1000000L / (v - 250000L) + (if v > 260000L then 4611686018427387904L else 0L endif);\n\
         println$ fold_left f 0L a;\n",
    );
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("R0004"), "{stderr}");
    assert!(stderr.contains("1000000 / 0"), "{stderr}");
    let out = same_as_the_sequential_fold(
        "fold_overflow_first",
        "typedef N = 300000;\n\
         var a : long ^ N;\n\
         for i in ..[N] do &a.i <- (i :>> long); done\n\
         fun f (acc:long) (v:long) =>\n\
           acc + 1000000L / (v - 250000L) + (if v >= 120000L then 4611686018427387904L else 0L endif);\n\
         println$ fold_left f 0L a;\n",
    );
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("R0003"), "{stderr}");
    assert!(!stderr.contains("R0004"), "{stderr}");
}

/// An output stream the test can read back.
#[derive(Clone, Default)]
struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("unpoisoned").extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn fused_store_fault_keeps_exactly_the_stores_before_it() {
    // The division by zero is at element 200 000, in the seventh block of the parallel fill:
    // a session keeps the array after the error (as the REPL does), and it must hold the
    // values of the elements before the fault and the defaults after it, on 1 and 2 threads.
    let fill = "typedef N = 300000;\n\
                var a : long ^ N;\n\
                for i in ..[N] do &a.i <- 1000000000L / ((i :>> long) - 200000L) + 1L; done\n";
    let after = "println$ \\sum a, a.199999, a.200000, a.299999;\n";
    let runs: Vec<(Vec<String>, String)> = [1, 2]
        .iter()
        .map(|&threads| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a thread pool");
            pool.install(|| {
                let out = Shared::default();
                let mut session =
                    tessera::Session::new(tessera::Settings::default().with_stdout(out.clone()));
                let codes = match session.run_source(fill) {
                    Ok(()) => Vec::new(),
                    Err(diags) => diags.iter().map(|d| d.code.to_string()).collect(),
                };
                session.run_source(after).expect("the array is still there");
                let printed =
                    String::from_utf8_lossy(&out.0.lock().expect("unpoisoned")).into_owned();
                (codes, printed)
            })
        })
        .collect();
    let expected: i64 = (0..200_000i64)
        .map(|i| 1_000_000_000 / (i - 200_000) + 1)
        .sum();
    assert_eq!(runs[0].0, vec!["R0004".to_string()]);
    assert_eq!(runs[0].1, format!("({expected}l, -999999999l, 0l, 0l)\n"));
    assert_eq!(runs[0], runs[1]);
}

/// The native parallel loops (a store loop over codes or a range, with a condition, into an
/// array of pairs, and `map`), with a division by zero at positions around the chunk
/// boundaries (chunks of 32 768) or none: the same output on 1 and 2 threads, and, through a
/// session as the REPL keeps it, the same array after the fault.
#[test]
fn native_parallel_loops_fault_like_the_sequential_loop() {
    let forms = [
        "for i in ..[N] do &a.i <- 1000000000L / ((i :>> long) - F) + 1L; done\n",
        "for i in 0 ..< 200000 do &a.i <- 1000000000L / (i.long - F); done\n",
        "for i in 0 ..< 200000 do if i % 3 == 1 do &a.i <- 7L / (i.long - F); else &a.i <- -1L; done done\n",
        "for i in ..[N] do &p.i <- ((i :>> long), 1.0 / double ((i :>> long) - F)); &a.i <- 5L / ((i :>> long) - F); done\n",
        "val b = map (fun (x:long) => 1000000L / (x - F)) c; &a <- b;\n",
    ];
    for (k, form) in forms.iter().enumerate() {
        for fault in [-1i64, 0, 32767, 32768, 65535, 98304, 199999] {
            let setup = format!(
                "typedef N = 200000;\nval F = {fault}L;\nvar a : long ^ N;\n\
                 var p : (long * double) ^ N;\nvar c : long ^ N;\n\
                 for i in ..[N] do &c.i <- (i :>> long); done\n"
            );
            let source = format!("{setup}{form}println$ \\sum a;\n");
            let out = same_on_one_and_two_threads(&format!("native_{k}"), &source);
            // The conditional form divides only where i % 3 == 1.
            let faults = fault >= 0 && (k != 2 || fault % 3 == 1);
            assert_eq!(
                out.status.code(),
                Some(if faults { 3 } else { 0 }),
                "{source}"
            );
            let after = "println$ \\sum a, a.32767, a.32768, a.98304, a.199999;\n";
            let runs: Vec<(Vec<String>, String)> = [1, 2]
                .iter()
                .map(|&threads| {
                    let pool = rayon::ThreadPoolBuilder::new()
                        .num_threads(threads)
                        .build()
                        .expect("a thread pool");
                    pool.install(|| {
                        let out = Shared::default();
                        let mut session = tessera::Session::new(
                            tessera::Settings::default().with_stdout(out.clone()),
                        );
                        session.run_source(&setup).expect("the setup runs");
                        let codes = match session.run_source(form) {
                            Ok(()) => Vec::new(),
                            Err(diags) => diags.iter().map(|d| d.code.to_string()).collect(),
                        };
                        session.run_source(after).expect("the array is still there");
                        let printed = String::from_utf8_lossy(&out.0.lock().expect("unpoisoned"))
                            .into_owned();
                        (codes, printed)
                    })
                })
                .collect();
            assert_eq!(runs[0], runs[1], "{form} with a fault at {fault}");
        }
    }
}

/// A counting loop and a `map` inside closures that read scalars they captured (the chunk
/// function is given their values), with a division by zero at a chunk boundary or none: the
/// same output, diagnostics and status on 1 and 2 threads and on the closure compiler.
#[test]
fn parallel_loops_read_captured_scalars() {
    for fault in [-1i64, 32768, 199999] {
        let source = format!(
            "typedef N = 200000;\n\
             fun scaled (k: long, f: long) : long ^ N -> long ^ N = {{\n\
             \x20 fun apply (c: long ^ N) : long ^ N = {{\n\
             \x20   var a : long ^ N;\n\
             \x20   for i in ..[N] do &a.i <- c.i * k + 1000000L / (c.i - f); done\n\
             \x20   return a;\n\
             \x20 }}\n\
             \x20 return apply;\n\
             }}\n\
             fun mapped (k: double) : long ^ N -> double ^ N = {{\n\
             \x20 fun apply (c: long ^ N) : double ^ N => map (fun (x: long) => x.double * k) c;\n\
             \x20 return apply;\n\
             }}\n\
             var c : long ^ N;\n\
             for i in ..[N] do &c.i <- (i :>> long); done\n\
             println$ \\sum (mapped 0.5 c);\n\
             println$ \\sum ((scaled (3L, {fault}L)) c);\n"
        );
        let out = same_on_one_and_two_threads("captures", &source);
        let closures = run_with("captures", &source, 2, false, &["--no-jit"]);
        assert_eq!(stdout(&out), stdout(&closures), "{source}");
        assert_eq!(out.stderr, closures.stderr, "{source}");
        assert_eq!(out.status.code(), closures.status.code());
        assert_eq!(out.status.code(), Some(if fault >= 0 { 3 } else { 0 }));
        assert!(
            stdout(&out).starts_with("9.99995e+09\n"),
            "{}",
            stdout(&out)
        );
    }
}
