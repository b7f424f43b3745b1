//! Loaded files are input like any other: mutations of the `.npy`, `.npz` and CSV fixtures
//! (bytes flipped, cut, repeated or inserted) are loaded under static and run-time shapes, in
//! process, and each load must end in a value or a file or data diagnostic (R0013, R0015, or
//! R0007 for a size past the limits), never a panic or an internal error. The mutations come
//! from a fixed seed, so a failure names a case that reproduces; `TESSERA_FUZZ_CASES` sets how
//! many there are per fixture.

use std::path::{Path, PathBuf};

use tessera::{exit_status, render, Session, Settings};

fn fixture(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[path = "support/rng.rs"]
mod rng;
use rng::Rng;

/// `bytes` changed in one to four places.
fn mutate(bytes: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(out.len() + 1);
        match rng.below(6) {
            0 if !out.is_empty() => {
                let i = at.min(out.len() - 1);
                out[i] ^= 1 << rng.below(8);
            }
            1 => out.truncate(at),
            2 => {
                let byte =
                    [b'0', b'9', b',', b'\n', b'"', b'-', b'e', b'(', b')', 0xff][rng.below(10)];
                out.insert(at, byte);
            }
            3 if at < out.len() => {
                let end = (at + 1 + rng.below(16)).min(out.len());
                let piece = out[at..end].to_vec();
                out.splice(at..at, piece);
            }
            4 if !out.is_empty() => {
                let i = at.min(out.len() - 1);
                out[i] = rng.next() as u8;
            }
            _ => {
                let end = (at + rng.below(8)).min(out.len());
                out.drain(at..end);
            }
        }
    }
    out
}

fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tessera-data-fuzz-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

fn cases() -> u64 {
    std::env::var("TESSERA_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(150)
}

/// Load every mutation of `fixture`, written to `file`, with each of `programs` (`{f}` stands
/// for the file's path).
fn fuzz(fixture_name: &str, file: &str, programs: &[&str], seed: u64) {
    let original = fixture(fixture_name);
    let dir = scratch(file);
    let path = dir.join(file);
    let mut rng = Rng(seed);
    for case in 0..cases() {
        let bytes = mutate(&original, &mut rng);
        std::fs::write(&path, &bytes).expect("the mutated file is written");
        for program in programs {
            let src = program.replace("{f}", &path.display().to_string());
            let mut session = Session::new(Settings::default().with_stdout(std::io::sink()));
            if let Err(diags) = session.run_source(&src) {
                let rendered = render(&diags, "fuzz.flx", &src, false);
                let allowed = ["[R0013]", "[R0015]", "[R0007]"];
                assert!(
                    exit_status(&diags) == 3 && allowed.iter().any(|c| rendered.contains(c)),
                    "{fixture_name}, case {case} (seed {seed}): {program}\n{rendered}"
                );
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn mutated_npy_files_load_or_fail_with_a_data_error() {
    fuzz(
        "float64_3d.npy",
        "m.npy",
        &[
            "val a : double ^ (2 \\* 3 \\* 4) = load_npy \"{f}\";\nprintln$ \\sum a;\n",
            "val [r, c, d] a : double ^ (r \\* c \\* d) = load_npy \"{f}\";\nprintln$ r, c, d, \\sum a;\n",
            "val [n] a : int ^ n = load_npy \"{f}\";\nprintln$ n;\n",
        ],
        1,
    );
}

#[test]
fn mutated_npz_archives_load_or_fail_with_a_data_error() {
    fuzz(
        "pair_compressed.npz",
        "m.npz",
        &[
            "val [r, c] a : double ^ (r \\* c) = load_npz (\"{f}\", \"x\");\nprintln$ r, c;\n",
            "val [n] a : int ^ n = load_npz (\"{f}\", \"n\");\nprintln$ n;\n",
        ],
        2,
    );
}

#[test]
fn mutated_csv_files_load_or_fail_with_a_data_error() {
    fuzz(
        "numpy_savetxt.csv",
        "m.csv",
        &[
            "val [r, c] m : double ^ (r \\* c) = load_csv \"{f}\";\nprintln$ r, c, \\sum m;\n",
            "val [r] m : double ^ (r \\* 4) = load_csv \"{f}\";\nprintln$ r;\n",
            "val m : double ^ (3 \\* 4) = load_csv_with (\"{f}\", (comment = \"#\", delimiter = \",\", header = true));\nprintln$ \\sum m;\n",
        ],
        3,
    );
}
