//! Native code never changes what a program does: every program of `examples/` (and its
//! subfolders) and every conformance program beside the repository (when it is there) runs in
//! two sessions, one compiling everything to native code (`Settings::with_jit(true)`, and
//! `with_jit_all(true)` so that the top level's statements that run once are native code
//! too, not left to closures as by default) and one running
//! everything on the closure compiler, and the two runs must agree on stdout, stderr (the
//! diagnostics, with their spans and call stacks) and the exit status. Every disagreement is
//! listed.
//!
//! The jit-on runs also measure the backend's coverage from `Session::jit_report()`: how many
//! of the function instances and units each program compiles (the prelude's, compiled when
//! the session starts, are left out) are native code, and how many fallback pieces run on the
//! closure compiler inside native code. `cargo test --test native_equivalence -- --nocapture`
//! prints the figure; `coverage_is_100_percent` requires every one of them to be native.
//!
//! The book's code blocks are not run here: `tests/book.rs` keeps its block reader to itself.

use std::io::Write;
use std::path::{Path, PathBuf};

use tessera::SharedBuffer;
use tessera::{exit_status, render};
use tessera::{Session, Settings};

/// Programs known to differ between native code and closures, skipped until the backend is
/// fixed, each with the reason (paths relative to the repository, or to the conformance
/// folder for `conformance/...`). Empty this list as the differences are fixed.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[];

/// The coverage the backend must keep: the percentage of the programs' function instances and
/// units compiled to native code. Every one is (what native code does not represent runs as
/// fallback pieces inside it); only a function of more than 16 000 expressions would not be,
/// and the programs have none.
const MIN_NATIVE_PERCENT: f64 = 100.0;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The conformance folder: `$CONFORMANCE_DIR`, else `shared/conformance` beside the
/// repository or beside one of its parent folders (a worktree checked out deeper).
fn conformance_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CONFORMANCE_DIR") {
        return Some(PathBuf::from(dir));
    }
    root()
        .ancestors()
        .skip(1)
        .map(|parent| parent.join("shared/conformance"))
        .find(|dir| dir.is_dir())
}

/// The `.flx` files of `folder` and its subfolders. A `.flx` beside a `.stdin` transcript of
/// the same name is a helper the transcript loads, not a program.
fn collect(folder: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, found);
        } else if path.extension().is_some_and(|e| e == "flx")
            && !path.with_extension("stdin").exists()
        {
            found.push(path);
        }
    }
}

/// The programs to compare, sorted, with the name `KNOWN_DIFFERENCES` uses for each.
fn programs() -> Vec<(String, PathBuf)> {
    let mut found = Vec::new();
    let mut examples = Vec::new();
    collect(&root().join("examples"), &mut examples);
    for path in examples {
        let name = path
            .strip_prefix(root())
            .expect("under the repository")
            .display()
            .to_string();
        found.push((name, path));
    }
    match conformance_dir() {
        Some(dir) => {
            let mut conformance = Vec::new();
            collect(&dir, &mut conformance);
            for path in conformance {
                let name = format!(
                    "conformance/{}",
                    path.strip_prefix(&dir).expect("under the folder").display()
                );
                found.push((name, path));
            }
        }
        None => eprintln!(
            "note: no conformance folder (../shared/conformance or $CONFORMANCE_DIR): \
             comparing the examples only"
        ),
    }
    found.sort();
    found
}

/// What one run gives: stdout, stderr, the exit status, and (jit on) the report entries of
/// the program's own instances and units.
struct Outcome {
    stdout: Vec<u8>,
    stderr: String,
    status: i32,
    report: Vec<String>,
}

impl Outcome {
    fn observed(&self) -> (&[u8], &str, i32) {
        (&self.stdout, &self.stderr, self.status)
    }
}

/// How a run uses native code.
#[derive(Clone, Copy, PartialEq)]
enum Jit {
    /// Everything on the closure compiler (`--no-jit`).
    Off,
    /// The default: a top level's statements without a loop run once on closures.
    Default,
    /// Everything native, the top level's run-once statements too (`--jit-all`).
    All,
}

/// One run on a thread with the interpreter thread's large stack (deeply nested programs
/// recurse deeply; their values and code are dropped there too).
fn run(program: &Path, jit: Jit) -> Outcome {
    let program = program.to_path_buf();
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || run_here(&program, jit))
        .expect("a thread")
        .join()
        .expect("the run returns")
}

fn run_here(program: &Path, jit: Jit) -> Outcome {
    let src = std::fs::read_to_string(program).expect("a UTF-8 program");
    let name = program.file_name().expect("a file name").to_string_lossy();
    let out = SharedBuffer::default();
    let err = SharedBuffer::default();
    let settings = Settings::default()
        .with_stdout(out.clone())
        .with_stderr(err.clone())
        .with_threads(2)
        .with_jit(jit != Jit::Off)
        .with_jit_all(jit == Jit::All);
    let mut session = Session::new(settings);
    // The prelude's entries, there before the program runs.
    let prelude = session.jit_report().len();
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
    let report = if jit != Jit::Off {
        session.jit_report().split_off(prelude)
    } else {
        Vec::new()
    };
    drop(session);
    Outcome {
        stdout: out.text().into_bytes(),
        stderr: err.text(),
        status,
        report,
    }
}

/// Counts of report entries: (native, closures, fallback pieces of native entries).
#[derive(Default)]
struct Coverage {
    native: usize,
    closures: usize,
    fallbacks: usize,
}

impl Coverage {
    fn add(&mut self, report: &[String]) {
        for entry in report {
            let mut lines = entry.lines();
            let head = lines.next().unwrap_or_default();
            let notes = lines.filter(|l| !l.trim().is_empty()).count();
            if head.ends_with(": native") {
                self.native += 1;
                self.fallbacks += notes;
            } else {
                self.closures += 1;
            }
        }
    }

    fn print(&self, programs: usize, skipped: usize) {
        eprintln!(
            "native code: {} of {} functions and units compiled natively ({:.1}%), {} fallback \
             pieces ({programs} programs, {skipped} known differences skipped)",
            self.native,
            self.native + self.closures,
            self.percent(),
            self.fallbacks,
        );
    }

    fn percent(&self) -> f64 {
        let total = self.native + self.closures;
        if total == 0 {
            100.0
        } else {
            100.0 * self.native as f64 / total as f64
        }
    }
}

#[test]
fn native_code_changes_nothing_a_program_prints() {
    let programs = programs();
    assert!(
        programs.len() > 100,
        "expected the examples (and the conformance programs), found {}",
        programs.len()
    );
    let mut differences = Vec::new();
    let mut coverage = Coverage::default();
    let mut skipped = 0;
    for (name, program) in &programs {
        if KNOWN_DIFFERENCES.iter().any(|(known, _)| known == name) {
            skipped += 1;
            continue;
        }
        let native = run(program, Jit::All);
        let closures = run(program, Jit::Off);
        coverage.add(&native.report);
        if native.status == 101 || native.observed() != closures.observed() {
            differences.push(format!(
                "{name}: native (status {}):\n{}{}\nclosures (status {}):\n{}{}",
                native.status,
                String::from_utf8_lossy(&native.stdout),
                native.stderr,
                closures.status,
                String::from_utf8_lossy(&closures.stdout),
                closures.stderr
            ));
        }
    }
    coverage.print(programs.len() - skipped, skipped);
    assert!(
        differences.is_empty(),
        "{} of {} programs differ with and without native code:\n{}",
        differences.len(),
        programs.len() - skipped,
        differences.join("\n")
    );
}

/// The backend compiles every one of the programs' functions and units to native code.
/// The target is over the examples and the conformance programs together: without the
/// conformance folder the figure is printed but not required.
#[test]
fn coverage_is_100_percent() {
    let whole_corpus = conformance_dir().is_some();
    let mut coverage = Coverage::default();
    let programs = programs();
    for (_, program) in &programs {
        coverage.add(&run(program, Jit::All).report);
    }
    coverage.print(programs.len(), 0);
    if !whole_corpus {
        eprintln!("note: the coverage target is not checked without the conformance programs");
        return;
    }
    assert!(
        coverage.percent() >= MIN_NATIVE_PERCENT,
        "native code covers {:.1}% of the functions and units, less than {MIN_NATIVE_PERCENT}%",
        coverage.percent()
    );
}

/// By default, a top level's statements without a loop run once on closures, between its
/// loops compiled to native code, sharing the frame and the globals with them, and so do the
/// cheap functions only they call: the output is that of native code everywhere and of
/// closures everywhere.
#[test]
fn run_once_statements_run_on_closures_between_native_loops() {
    let program = root().join("examples/top_level_pieces.flx");
    let default = run(&program, Jit::Default);
    assert_eq!(default.observed(), run(&program, Jit::All).observed());
    assert_eq!(default.observed(), run(&program, Jit::Off).observed());
    let top = default
        .report
        .iter()
        .find(|entry| entry.starts_with("top level: native"))
        .expect("the top level has native pieces");
    let on_closures = top
        .lines()
        .filter(|line| line.contains("without a loop run once, on closures"))
        .count();
    // The runs of statements without a loop, between and after the loops.
    assert_eq!(on_closures, 9, "{top}");
    // A cheap function those statements call stays on closures; one that a loop calls
    // later is compiled then; a recursive one, and one with a `while`, are compiled at once.
    let entry = |name: &str| {
        (default.report.iter())
            .position(|entry| entry.starts_with(name))
            .unwrap_or_else(|| panic!("no {name}in {:?}", default.report))
    };
    assert!(default.report[entry("corner_sum: ")].starts_with("corner_sum: closures"));
    assert!(default.report[entry("fact: ")].starts_with("fact: native"));
    assert!(default.report[entry("halvings: ")].starts_with("halvings: native"));
    let deferred = entry("plus_two: closures");
    assert!(
        default.report[deferred + 1..]
            .iter()
            .any(|entry| entry.starts_with("plus_two: native")),
        "{:?}",
        default.report
    );
    let all = run(&program, Jit::All);
    assert!(
        all.report.iter().all(|entry| entry
            .lines()
            .next()
            .is_some_and(|h| h.ends_with(": native"))
            && !entry.contains("run once, on closures")),
        "{:?}",
        all.report
    );
}

/// Every known difference names a program that exists, once.
#[test]
fn known_differences_name_programs() {
    let programs = programs();
    let have_conformance = conformance_dir().is_some();
    for (i, (known, reason)) in KNOWN_DIFFERENCES.iter().enumerate() {
        assert!(!reason.is_empty(), "{known}: give the reason");
        assert!(
            KNOWN_DIFFERENCES[..i].iter().all(|(k, _)| k != known),
            "{known} is listed twice"
        );
        if known.starts_with("conformance/") && !have_conformance {
            continue;
        }
        assert!(
            programs.iter().any(|(name, _)| name == known),
            "{known} is not a program this test runs"
        );
    }
}
