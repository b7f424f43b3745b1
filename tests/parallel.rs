//! Every parallel path (spec L9.5) gives bit-identical results with 1 and 2 worker threads:
//! each program runs in the real binary with `RAYON_NUM_THREADS=1` and `=2` (and `--threads`),
//! and stdout, stderr and the exit status must be the same. The arrays are larger than the
//! parallel threshold, so the 2-thread runs really split the work.

use std::path::PathBuf;
use std::process::{Command, Output};

/// Run `source` with the given thread count (through the environment or the flag).
fn run(name: &str, source: &str, threads: usize, by_flag: bool) -> Output {
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
    command.arg("run").arg(&file);
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
