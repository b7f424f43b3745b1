//! Inlining never changes what a program does: every golden program of
//! `examples/` and every conformance program beside the repository (when it is there) runs in
//! two sessions, one inlining calls and one calling every function as written, and the two
//! runs must agree on stdout, stderr (the diagnostics, with their spans and call stacks) and
//! the exit status. Every disagreement is listed.

use std::io::Write;
use std::path::{Path, PathBuf};

use tessera::SharedBuffer;
use tessera::{exit_status, render};
use tessera::{Session, Settings};

/// The programs to compare: `.flx` files of these folders, sorted.
fn programs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut folders = vec![root.join("examples")];
    let conformance = root.join("../shared/conformance");
    for folder in ["core", "compact", "types", "errors", "beyond", "felix"] {
        folders.push(conformance.join(folder));
    }
    let mut found = Vec::new();
    for folder in folders {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            // A `.flx` beside a `.stdin` transcript is a helper the transcript loads.
            if path.extension().is_some_and(|e| e == "flx")
                && !path.with_extension("stdin").exists()
            {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// Stdout, stderr and the exit status of one run, in a session on two worker threads with
/// inlining on or off, on a thread with the interpreter thread's large stack (deeply nested
/// programs recurse deeply; their values and code are dropped there too).
fn run(program: &Path, inline: bool) -> (Vec<u8>, String, i32) {
    let program = program.to_path_buf();
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || run_here(&program, inline))
        .expect("a thread")
        .join()
        .expect("the run returns")
}

fn run_here(program: &Path, inline: bool) -> (Vec<u8>, String, i32) {
    let src = std::fs::read_to_string(program).expect("a UTF-8 program");
    let name = program.file_name().expect("a file name").to_string_lossy();
    let out = SharedBuffer::default();
    let err = SharedBuffer::default();
    let settings = Settings::default()
        .with_stdout(out.clone())
        .with_stderr(err.clone())
        .with_threads(2)
        .with_inline(inline);
    let mut session = Session::new(settings);
    let status = match tessera::catch_internal_error(|| session.run_source(&src)) {
        Ok(Ok(())) => 0,
        Ok(Err(diags)) => {
            session.flush();
            let rendered = render(&diags, &name, &src, false);
            err.clone()
                .write_all(rendered.as_bytes())
                .expect("a buffer");
            exit_status(&diags)
        }
        Err(message) => {
            session.flush();
            let diag = tessera::internal_error_diagnostic(&message, &src);
            let rendered = render(&[diag], &name, &src, false);
            err.clone()
                .write_all(rendered.as_bytes())
                .expect("a buffer");
            101
        }
    };
    drop(session);
    (out.text().into_bytes(), err.text(), status)
}

#[test]
fn inlining_changes_nothing_a_program_prints() {
    let programs = programs();
    assert!(
        programs.len() > 100,
        "expected the examples (and the conformance programs), found {}",
        programs.len()
    );
    let mut differences = Vec::new();
    for program in &programs {
        let inlined = run(program, true);
        let called = run(program, false);
        if inlined.2 == 101 || inlined != called {
            differences.push(format!(
                "{}: inlined (status {}):\n{}{}\ncalled (status {}):\n{}{}",
                program.display(),
                inlined.2,
                String::from_utf8_lossy(&inlined.0),
                inlined.1,
                called.2,
                String::from_utf8_lossy(&called.0),
                called.1
            ));
        }
    }
    assert!(
        differences.is_empty(),
        "{} of {} programs differ with and without inlining:\n{}",
        differences.len(),
        programs.len(),
        differences.join("\n")
    );
}
