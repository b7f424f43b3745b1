//! REPL transcripts: every `examples/repl/NAME.stdin` is piped to the built binary (stdin is
//! not a terminal, so no banner and no prompts), run in `examples/repl`, and its stdout must
//! equal `NAME.expect`; the exit status is 0, or 1 or 3 when a chunk failed. Every failing
//! transcript is listed.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn transcripts_folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join("repl")
}

fn check_transcript(folder: &Path, name: &str) -> Result<(), String> {
    let input = std::fs::read(folder.join(format!("{name}.stdin")))
        .map_err(|error| format!("cannot read the .stdin: {error}"))?;
    let expected = std::fs::read_to_string(folder.join(format!("{name}.expect")))
        .map_err(|error| format!("cannot read the .expect: {error}"))?;
    let mut child = Command::new(env!("CARGO_BIN_EXE_tessera"))
        .current_dir(folder)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| format!("cannot start the binary: {error}"))?;
    let mut stdin = child.stdin.take().expect("stdin is piped");
    // The REPL may stop reading early (`:quit`), so a failed write is not an error.
    let _ = stdin.write_all(&input);
    drop(stdin);
    let output = child
        .wait_with_output()
        .map_err(|error| format!("cannot wait for the binary: {error}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if stderr.contains("panicked at") {
        return Err(format!("panicked:\n{stderr}"));
    }
    // Piped input exits 0 when every chunk ran, 1 or 3 after a static or runtime error in a
    // chunk (a command's error, such as an unknown `:doc` name, leaves it 0).
    let chunk_failed = stderr.contains("] Error:");
    let expected_status: &[i32] = if chunk_failed { &[0, 1, 3] } else { &[0] };
    if !output
        .status
        .code()
        .is_some_and(|code| expected_status.contains(&code))
    {
        return Err(format!(
            "exit status {:?}, expected {expected_status:?}\n--- stderr\n{stderr}",
            output.status.code()
        ));
    }
    if stdout != expected {
        return Err(format!(
            "stdout differs\n--- expected\n{expected}--- actual\n{stdout}--- stderr\n{stderr}"
        ));
    }
    Ok(())
}

#[test]
fn every_transcript_matches() {
    let folder = transcripts_folder();
    let mut names: Vec<String> = std::fs::read_dir(&folder)
        .expect("the examples/repl folder exists")
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            (path.extension()? == "stdin")
                .then(|| path.file_stem()?.to_str().map(str::to_string))?
        })
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no transcripts in {}", folder.display());
    let failures: Vec<String> = names
        .iter()
        .filter_map(|name| {
            check_transcript(&folder, name)
                .err()
                .map(|reason| format!("== {name}: {reason}"))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} transcripts failed:\n{}",
        failures.len(),
        names.len(),
        failures.join("\n")
    );
}
