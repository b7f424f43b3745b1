//! The command line (L0.2, L0.3): exit statuses, `--help`, `--version`, `check` runs nothing.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn examples_folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples")
}

/// Run the binary in the examples folder with the given arguments and no stdin.
fn tessera(arguments: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(arguments)
        .current_dir(examples_folder())
        .stdin(Stdio::null())
        .output()
        .expect("the binary starts")
}

struct Expected<'a> {
    status: i32,
    stdout: Option<&'a str>,
    stderr_contains: &'a [&'a str],
}

fn check(arguments: &[&str], expected: Expected<'_>) {
    let output = tessera(arguments);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let context = format!("tessera {arguments:?}\n--- stdout\n{stdout}--- stderr\n{stderr}");
    assert_eq!(output.status.code(), Some(expected.status), "{context}");
    assert!(!stderr.contains("panicked at"), "{context}");
    if let Some(expected_stdout) = expected.stdout {
        assert_eq!(stdout, expected_stdout, "{context}");
    }
    for fragment in expected.stderr_contains {
        assert!(
            stderr.contains(fragment),
            "missing {fragment:?} in {context}"
        );
    }
}

#[test]
fn a_good_program_runs_with_status_0() {
    let expected_output = "Hello, Tessera!\n42\n";
    for arguments in [&["hello.flx"][..], &["run", "hello.flx"][..]] {
        check(
            arguments,
            Expected {
                status: 0,
                stdout: Some(expected_output),
                stderr_contains: &[],
            },
        );
    }
}

#[test]
fn standard_error_streams_go_to_stderr() {
    // L11.29: eprint, eprintln, eendl and fprint (cstderr, …) write to the process's stderr.
    let output = tessera(&["lib_streams.flx"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "one 2\n\nthree\n");
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "to stderr 42\n\n(1, 2)\nx\n"
    );
}

#[test]
fn a_static_error_has_status_1_and_runs_nothing() {
    check(
        &["run", "error_type_mismatch.flx"],
        Expected {
            status: 1,
            stdout: Some(""),
            stderr_contains: &["error_type_mismatch.flx:3:", "E0301"],
        },
    );
}

#[test]
fn a_runtime_error_has_status_3_and_keeps_earlier_output() {
    check(
        &["error_index.flx"],
        Expected {
            status: 3,
            stdout: Some("1\n"),
            stderr_contains: &["error_index.flx:5:", "R0001"],
        },
    );
}

#[test]
fn usage_errors_have_status_2() {
    let cases: [(&[&str], &str); 5] = [
        (&["no_such_file.flx"], "no_such_file.flx"),
        (&["run", "no_such_file.flx"], "no_such_file.flx"),
        (&["frobnicate"], "unknown command `frobnicate`"),
        (&["--frobnicate"], "unknown option `--frobnicate`"),
        (&["check"], "`check` needs a file"),
    ];
    for (arguments, message) in cases {
        check(
            arguments,
            Expected {
                status: 2,
                stdout: Some(""),
                stderr_contains: &[message],
            },
        );
    }
}

#[test]
fn help_and_version() {
    let help = tessera(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    let help_text = String::from_utf8_lossy(&help.stdout);
    for fragment in ["Usage:", "check FILE.flx", "--threads N", "Exit status"] {
        assert!(
            help_text.contains(fragment),
            "missing {fragment:?} in\n{help_text}"
        );
    }
    check(
        &["--version"],
        Expected {
            status: 0,
            stdout: Some(&format!(
                "tessera {} (commit {})\n",
                env!("CARGO_PKG_VERSION"),
                env!("TESSERA_COMMIT")
            )),
            stderr_contains: &[],
        },
    );
}

#[test]
fn check_runs_nothing() {
    // The program prints and then fails at run time; `check` sees no static error.
    check(
        &["check", "error_index.flx"],
        Expected {
            status: 0,
            stdout: Some(""),
            stderr_contains: &[],
        },
    );
    check(
        &["check", "error_syntax.flx"],
        Expected {
            status: 1,
            stdout: Some(""),
            stderr_contains: &["error_syntax.flx:3:", "E0100"],
        },
    );
}

#[test]
fn threads_option_is_accepted() {
    check(
        &["--threads", "2", "hello.flx"],
        Expected {
            status: 0,
            stdout: Some("Hello, Tessera!\n42\n"),
            stderr_contains: &[],
        },
    );
    check(
        &["--threads", "zero", "hello.flx"],
        Expected {
            status: 2,
            stdout: Some(""),
            stderr_contains: &["--threads"],
        },
    );
}

#[test]
fn jit_report_names_what_was_compiled_and_the_time_it_took() {
    let output = tessera(&["--jit-report", "native_loops.flx"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(
        lines.iter().any(|l| l.ends_with(": native")),
        "no native entry in\n{stderr}"
    );
    let time = lines.last().copied().unwrap_or_default();
    let millis = time
        .strip_prefix("compiling to native code took ")
        .and_then(|rest| rest.strip_suffix(" ms in this session"))
        .and_then(|ms| ms.parse::<f64>().ok());
    assert!(
        millis.is_some_and(|ms| ms > 0.0),
        "the report does not end with a time:\n{stderr}"
    );
    let off = tessera(&["--jit-report", "--no-jit", "native_loops.flx"]);
    let stderr = String::from_utf8_lossy(&off.stderr);
    assert!(stderr.contains("native code is off"), "{stderr}");
    assert!(
        !stderr.contains("compiling to native code took"),
        "{stderr}"
    );
}

#[test]
fn piped_repl_prints_no_banner_or_prompt() {
    let output = tessera(&[]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "");
}

#[test]
fn explain_prints_the_error_index_page() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("book/src/errors/E0401.md"))
        .expect("the error index has E0401");
    for code in ["E0401", "e0401"] {
        check(
            &["--explain", code],
            Expected {
                status: 0,
                stdout: Some(&page),
                stderr_contains: &[],
            },
        );
    }
    check(
        &["--explain", "E9999"],
        Expected {
            status: 2,
            stdout: Some(""),
            stderr_contains: &["no error code `E9999`", "E0401"],
        },
    );
}

#[test]
fn doc_prints_the_library_reference() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let page = std::fs::read_to_string(root.join("book/src/library.md"))
        .expect("the library reference is generated");
    check(
        &["doc"],
        Expected {
            status: 0,
            stdout: Some(&page),
            stderr_contains: &[],
        },
    );
}

#[test]
fn dump_ir_prints_the_ir_and_runs_nothing() {
    let output = tessera(&["--dump-ir", "hello.flx"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    assert_eq!(
        stdout, "Println(\"Hello, Tessera!\")\nPrintln(IntArith(Mul, Int)(6, 7))\n",
        "the program's IR, not its output"
    );

    let program = std::env::temp_dir().join(format!("tessera_dump_ir_{}.flx", std::process::id()));
    // `eendl` is the library's: checked with this program, but not part of its IR.
    std::fs::write(
        &program,
        "fun square (x: int) : int => x * x;\nprintln (square 3);\neendl ();\n",
    )
    .expect("a temporary file");
    let path = program.to_str().expect("a UTF-8 path");
    let checked = tessera(&["--dump-ir", path]);
    let inlined = tessera(&["--dump-ir=inlined", path]);
    let not_inlined = tessera(&["--no-inline", "--dump-ir=inlined", path]);
    std::fs::remove_file(&program).ok();
    let [checked, inlined, not_inlined] =
        [checked, inlined, not_inlined].map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
    assert!(
        checked.contains("\nPrintln(f") && checked.contains("(3))\n"),
        "{checked}"
    );
    assert!(!checked.contains("eendl"), "{checked}");
    assert!(
        inlined.contains("Println(inline square => IntArith(Mul, Int)(3, 3))\n"),
        "{inlined}"
    );
    assert_eq!(not_inlined, checked);

    check(
        &["--dump-ir", "check", "hello.flx"],
        Expected {
            status: 2,
            stdout: Some(""),
            stderr_contains: &["`--dump-ir` needs one file"],
        },
    );
}

/// A scratch folder of its own for one test, removed when the test ends.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("tessera_io_{}_{name}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        Scratch(dir)
    }

    fn path(&self, file: &str) -> String {
        self.0
            .join(file)
            .to_str()
            .expect("a UTF-8 path")
            .to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Run `program` (written to `prog.flx` in `scratch`) with `options` before the file, the
/// program's `args` after it and `input` on stdin, in the scratch folder; with native code on
/// and off, which must agree. The output of the native run.
fn run_program(
    scratch: &Scratch,
    program: &str,
    options: &[&str],
    args: &[&str],
    input: &str,
) -> Output {
    use std::io::Write;
    let file = scratch.path("prog.flx");
    std::fs::write(&file, program).expect("the program is written");
    let run = |jit: bool| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_tessera"));
        if !jit {
            command.arg("--no-jit");
        }
        let mut child = command
            .args(options)
            .arg(&file)
            .args(args)
            .current_dir(&scratch.0)
            .env("TESSERA_IO_TEST", "set by the test")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        let mut stdin = child.stdin.take().expect("a pipe");
        stdin
            .write_all(input.as_bytes())
            .expect("the input is written");
        drop(stdin);
        child.wait_with_output().expect("the binary ends")
    };
    let closures = run(false);
    let native = run(true);
    assert_eq!(
        (native.status.code(), &native.stdout, &native.stderr),
        (closures.status.code(), &closures.stdout, &closures.stderr),
        "native code and closures differ on\n{program}"
    );
    native
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_program_gets_the_arguments_after_its_file() {
    let scratch = Scratch::new("args");
    let program = "println$ System::argc;\n\
        for i in 1 ..< System::argc do println$ System::argv i; done\n\
        println$ System::argv (-1) == \"\", System::argv System::argc == \"\";\n\
        println$ endswith (System::argv 0) \"prog.flx\";\n";
    let output = run_program(
        &scratch,
        program,
        &["--threads", "2"],
        &["a b", "--no-jit", "--", "-x"],
        "",
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        "5\na b\n--no-jit\n--\n-x\n(true, true)\ntrue\n"
    );
    // `--` ends Tessera's options: the next argument is the file.
    let output = run_program(&scratch, program, &["--"], &["1"], "");
    assert_eq!(text(&output.stdout), "2\n1\n(true, true)\ntrue\n");
}

#[test]
fn environment_variables_are_read_and_unset_ones_are_empty() {
    let scratch = Scratch::new("env");
    let program = "println$ Env::getenv \"TESSERA_IO_TEST\";\n\
        println$ Env::getenv \"TESSERA_IO_TEST_UNSET\" == \"\";\n";
    let output = run_program(&scratch, program, &[], &[], "");
    assert_eq!(text(&output.stdout), "set by the test\ntrue\n");
}

#[test]
fn standard_input_is_read_line_by_line() {
    let scratch = Scratch::new("stdin");
    let program = "var sum = 0;\n\
        var line = readln cstdin;\n\
        while line != \"\" do\n  print$ \"read \" + line;\n  sum = sum + parse_int line;\n  line = readln cstdin;\ndone\n\
        println \"\";\nprintln$ sum;\nprintln$ readln cstdin == \"\";\n";
    // The last line has no newline: readln gives it as it is.
    let output = run_program(&scratch, program, &[], &[], "1\n 20\n300");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        "read 1\nread  20\nread 300\n321\ntrue\n"
    );
    let output = run_program(&scratch, "print$ load cstdin;", &[], &[], "all\nof it\n");
    assert_eq!(text(&output.stdout), "all\nof it\n");
}

#[test]
fn system_exit_ends_the_program_with_its_status() {
    let scratch = Scratch::new("exit");
    let program = "val out = fopen_output \"kept.txt\";\nwriteln (out, \"flushed\");\n\
        proc stop (code: int) { print \"stopping \"; System::exit code; }\n\
        println \"before\";\nstop (int (System::argv 1));\nprintln \"after\";\n";
    for (code, status) in [("0", 0), ("5", 5), ("258", 2), ("-1", 255)] {
        let output = run_program(&scratch, program, &[], &[code], "");
        assert_eq!(output.status.code(), Some(status), "exit {code}");
        assert_eq!(text(&output.stdout), "before\nstopping ");
        assert_eq!(text(&output.stderr), "");
        let kept = std::fs::read_to_string(scratch.path("kept.txt")).expect("the file");
        assert_eq!(kept, "flushed\n");
    }
    // In the REPL, System::exit ends the session with its status.
    let mut child = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("a pipe");
        let lines = ":set args x\nprintln$ System::argv 1;\nSystem::exit 4;\nprintln 2;\n";
        stdin
            .write_all(lines.as_bytes())
            .expect("the input is written");
    }
    let output = child.wait_with_output().expect("the binary ends");
    assert_eq!(output.status.code(), Some(4));
    assert_eq!(text(&output.stdout), "x\n");
}

#[test]
fn files_are_written_appended_and_read_back() {
    let scratch = Scratch::new("files");
    let program = "val out = fopen_output \"data.txt\";\nprintln$ valid out;\n\
        writeln (out, \"one\");\nfprint (out, 2);\nendl out;\nwrite (out, \"three\");\nfclose out;\n\
        println$ valid out;\n\
        val more = fopen_append \"data.txt\";\nfprintln (more, \"\\nfour\");\nfflush more;\nfclose more;\n\
        val f = fopen_input \"data.txt\";\nprint$ readln f;\nprint$ readln f;\nprint$ load f;\n\
        println$ readln f == \"\";\nfclose f;\nfclose f;\n\
        save (\"saved.txt\", load \"data.txt\" + \"five\");\nprint$ load \"saved.txt\";\n";
    let output = run_program(&scratch, program, &[], &[], "");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        "true\nfalse\none\n2\nthree\nfour\ntrue\none\n2\nthree\nfour\nfive"
    );
    let saved = std::fs::read_to_string(scratch.path("saved.txt")).expect("the file");
    assert_eq!(saved, "one\n2\nthree\nfour\nfive");
}

#[test]
fn every_file_fault_is_r0013_with_the_path_and_keeps_earlier_output() {
    let scratch = Scratch::new("faults");
    std::fs::create_dir_all(scratch.path("folder")).expect("a folder");
    let cases: [(&str, &str); 8] = [
        (
            "println$ load \"missing.txt\";",
            "cannot read `missing.txt`: no such file or directory",
        ),
        (
            "println$ load \"folder\";",
            "cannot read `folder`: it is a directory",
        ),
        (
            "val f = fopen_input \"folder\"; println$ valid f; println$ readln f;",
            "cannot read `folder`: it could not be opened (it is a directory)",
        ),
        (
            "val f = fopen_output \"no/such/dir/x.txt\"; println$ valid f; writeln (f, \"x\");",
            "cannot write `no/such/dir/x.txt`: it could not be opened (no such file or directory)",
        ),
        (
            "val f = fopen_output \"closed.txt\"; fclose f; writeln (f, \"x\");",
            "cannot write `closed.txt`: the file is closed",
        ),
        (
            "val f = fopen_input \"closed.txt\"; fclose f; println$ load f;",
            "cannot read `closed.txt`: the file is closed",
        ),
        (
            "save (\"/dev/full\", \"x\");",
            "cannot write `/dev/full`: no space left on the device",
        ),
        // A buffered write fails when the file is flushed at the end of the program.
        (
            "val f = fopen_output \"/dev/full\"; writeln (f, \"x\");",
            "cannot write `/dev/full`: no space left on the device",
        ),
    ];
    for (case, message) in cases {
        let program = format!("println \"before\";\n{case}\n");
        let output = run_program(&scratch, &program, &[], &[], "");
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(3), "{case}\n{stderr}");
        assert!(text(&output.stdout).starts_with("before\n"), "{case}");
        assert!(stderr.contains("R0013"), "{case}\n{stderr}");
        assert!(stderr.contains(message), "{case}\n{stderr}");
        assert!(
            stderr.contains("prog.flx:2:"),
            "{case}: the fault's line\n{stderr}"
        );
    }
}

#[test]
fn checked_parsing_is_r0014_and_felix_conversions_stay_lenient() {
    let scratch = Scratch::new("parse");
    let output = run_program(
        &scratch,
        "println$ int \"abc\", int \"12x\", parse_int \"-7\", parse_double \" 1.5e2\\n\";",
        &[],
        &[],
        "",
    );
    assert_eq!(text(&output.stdout), "(0, 12, -7, 150)\n");
    let cases = [
        (
            "println$ parse_int \"12x\";",
            "`12x` is not an int: unexpected `x` at position 3",
        ),
        (
            "println$ parse_int \"9999999999\";",
            "`9999999999` does not fit int",
        ),
        (
            "println$ parse_double \"1.5.2\";",
            "`1.5.2` is not a double: unexpected `.` at position 4",
        ),
        (
            "println$ parse_double \"\";",
            "`` is not a double: there is no number",
        ),
    ];
    for (program, message) in cases {
        let output = run_program(&scratch, program, &[], &[], "");
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(3), "{program}\n{stderr}");
        assert!(
            stderr.contains("R0014") && stderr.contains(message),
            "{program}\n{stderr}"
        );
    }
}
