//! Running the `tessera` binary under a time and memory bound (shared by the robustness
//! tests).

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Address space for one run (the issue asks for 1 GiB in release builds).
pub const MEMORY_KIB: u64 = 1 << 20;
/// Wall-clock bound per run (generous: tests run the unoptimised binary on a shared machine).
pub const TIME_LIMIT: Duration = Duration::from_secs(20);

#[allow(dead_code)] // each test binary reads the fields it needs
pub struct Outcome {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

/// Run `tessera ARGS` (with `stdin`), under `ulimit -v` and a timeout.
pub fn run_tessera(args: &[&str], stdin: &[u8]) -> Outcome {
    let script = format!(
        "ulimit -v {MEMORY_KIB}; exec timeout -s KILL {} \"$0\" \"$@\"",
        TIME_LIMIT.as_secs()
    );
    let start = Instant::now();
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_tessera"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tessera");
    let mut input = child.stdin.take().expect("stdin");
    let stdin = stdin.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let output = child.wait_with_output().expect("wait for tessera");
    let _ = feeder.join();
    Outcome {
        status: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        elapsed: start.elapsed(),
    }
}
