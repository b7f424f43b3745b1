//! Golden programs: every `examples/*.flx` runs through the built binary. With `NAME.expect`
//! it must exit 0 and print exactly that on stdout; with `NAME.fail` (line 1: the source line
//! of the error, line 2: the exit status, 1 when absent, further lines: texts stderr must
//! contain, such as the frames of a call stack) it must exit with that status, name
//! `NAME.flx:LINE:` on stderr, contain those texts and not panic. Every failing example is
//! listed.

use std::path::{Path, PathBuf};
use std::process::Command;

fn examples_folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples")
}

/// Run one example; `Err` describes how it failed.
fn check_example(folder: &Path, name: &str) -> Result<(), String> {
    let output = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .arg("run")
        .arg(format!("{name}.flx"))
        .current_dir(folder)
        .output()
        .map_err(|error| format!("cannot start the binary: {error}"))?;
    let status = output.status.code().unwrap_or(-1);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if stderr.contains("panicked at") {
        return Err(format!("panicked:\n{stderr}"));
    }
    let expect_path = folder.join(format!("{name}.expect"));
    let fail_path = folder.join(format!("{name}.fail"));
    if let Ok(expected) = std::fs::read_to_string(&expect_path) {
        if status != 0 {
            return Err(format!(
                "exit status {status}, expected 0; stderr:\n{stderr}"
            ));
        }
        if stdout != expected {
            return Err(format!(
                "stdout differs\n--- expected\n{expected}--- actual\n{stdout}"
            ));
        }
        Ok(())
    } else if let Ok(fail) = std::fs::read_to_string(&fail_path) {
        let mut lines = fail.lines();
        let line: String = lines
            .next()
            .unwrap_or("")
            .chars()
            .filter(char::is_ascii_digit)
            .collect();
        let wanted_status: i32 = lines
            .next()
            .and_then(|text| text.trim().parse().ok())
            .unwrap_or(1);
        if status != wanted_status {
            return Err(format!(
                "exit status {status}, expected {wanted_status}; stderr:\n{stderr}"
            ));
        }
        let location = format!("{name}.flx:{line}:");
        if !stderr.contains(&location) {
            return Err(format!("stderr does not name `{location}`:\n{stderr}"));
        }
        for text in lines.filter(|text| !text.trim().is_empty()) {
            if !stderr.contains(text) {
                return Err(format!("stderr does not contain `{text}`:\n{stderr}"));
            }
        }
        Ok(())
    } else {
        Err("neither a .expect nor a .fail file".to_string())
    }
}

#[test]
fn every_example_behaves_as_recorded() {
    let folder = examples_folder();
    let mut names: Vec<String> = std::fs::read_dir(&folder)
        .expect("the examples folder exists")
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            (path.extension()? == "flx").then(|| path.file_stem()?.to_str().map(str::to_string))?
        })
        .collect();
    names.sort();
    assert!(
        names.len() >= 15,
        "expected at least 15 examples, found {}",
        names.len()
    );
    let failures: Vec<String> = names
        .iter()
        .filter_map(|name| {
            check_example(&folder, name)
                .err()
                .map(|reason| format!("== {name}: {reason}"))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} examples failed:\n{}",
        failures.len(),
        names.len(),
        failures.join("\n")
    );
}
