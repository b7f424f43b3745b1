//! Inlining never changes what a program does (issue 11): every golden program of
//! `examples/` and every conformance program beside the repository (when it is there) runs
//! through the built binary twice, as is and with `--no-inline` (every function called as
//! written), and the two runs must agree on stdout, stderr (the diagnostics, with their spans
//! and call stacks) and the exit status. Every disagreement is listed.

use std::path::{Path, PathBuf};
use std::process::Command;

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

/// Stdout, stderr and the exit status of one run.
fn run(program: &Path, extra: &[&str]) -> (Vec<u8>, String, i32) {
    let output = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .args(extra)
        .arg("run")
        .arg(program.file_name().expect("a file name"))
        .current_dir(program.parent().expect("a folder"))
        .env("RAYON_NUM_THREADS", "2")
        .output()
        .expect("the binary starts");
    (
        output.stdout,
        String::from_utf8_lossy(&output.stderr).into_owned(),
        output.status.code().unwrap_or(-1),
    )
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
        let inlined = run(program, &[]);
        let called = run(program, &["--no-inline"]);
        if inlined.1.contains("panicked at") || inlined != called {
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
