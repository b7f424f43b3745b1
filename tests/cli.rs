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
    std::fs::write(
        &program,
        "fun square (x: int) : int => x * x;\nprintln (square 3);\n",
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
        checked.contains("\nPrintln(f") && checked.ends_with("(3))\n"),
        "{checked}"
    );
    assert!(
        inlined.ends_with("Println(inline square => IntArith(Mul, Int)(3, 3))\n"),
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
