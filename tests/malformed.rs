//! The malformed-input corpus: every file under `tests/malformed/cases/` (truncated
//! programs, binary bytes, non-UTF-8, huge literals and types, unbalanced comments and
//! strings, nesting at and past the limits, token soups, every reproducer class) is run by the
//! binary with a time and memory bound. Each must end with exit status 0, 1 or 3 (never a
//! crash or a hang), every diagnostic with a source location, and with the status and first
//! error code recorded in `tests/malformed/expected.txt` (`RECORD=1` rewrites that file; the
//! generator is `tests/malformed/generate.py`).

mod support;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

use support::run_tessera;

fn first_code(stderr: &str) -> String {
    stderr
        .match_indices("] Error:")
        .next()
        .and_then(|(end, _)| {
            stderr[..end]
                .rfind('[')
                .map(|start| &stderr[start + 1..end])
        })
        .unwrap_or("-")
        .to_string()
}

#[test]
fn malformed_corpus() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/malformed");
    let mut names: Vec<String> = std::fs::read_dir(root.join("cases"))
        .expect("the corpus")
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 200, "{} cases", names.len());
    let results: Mutex<BTreeMap<String, (i32, String)>> = Mutex::new(BTreeMap::new());
    let failures: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let next = Mutex::new(0usize);
    std::thread::scope(|scope| {
        for _ in 0..3 {
            scope.spawn(|| loop {
                let index = {
                    let mut next = next.lock().unwrap();
                    *next += 1;
                    *next - 1
                };
                let Some(name) = names.get(index) else { break };
                let path = root.join("cases").join(name);
                let outcome = run_tessera(&[path.to_str().unwrap()], b"");
                let mut problems = Vec::new();
                if ![0, 1, 3].contains(&outcome.status) {
                    problems.push(format!("exit status {}", outcome.status));
                }
                if outcome.stderr.contains("panicked") || outcome.stderr.contains("internal error")
                {
                    problems.push("a crash".to_string());
                }
                let errors = outcome.stderr.matches("] Error:").count();
                let located = outcome.stderr.matches("╭─[").count();
                if errors > located {
                    problems.push(format!("{errors} errors, {located} with a location"));
                }
                if !problems.is_empty() {
                    let head: String = outcome.stderr.chars().take(600).collect();
                    failures
                        .lock()
                        .unwrap()
                        .push(format!("{name}: {}\n{head}", problems.join(", ")));
                }
                results
                    .lock()
                    .unwrap()
                    .insert(name.clone(), (outcome.status, first_code(&outcome.stderr)));
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    let results = results.into_inner().unwrap();
    let table: String = results
        .iter()
        .map(|(name, (status, code))| format!("{name} {status} {code}\n"))
        .collect();
    let expected_path = root.join("expected.txt");
    if std::env::var_os("RECORD").is_some() {
        std::fs::write(&expected_path, &table).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&expected_path).expect("tests/malformed/expected.txt");
    let mut differences = Vec::new();
    for (want, got) in expected.lines().zip(table.lines()) {
        if want != got {
            differences.push(format!("expected `{want}`, got `{got}`"));
        }
    }
    assert_eq!(
        expected.lines().count(),
        table.lines().count(),
        "the corpus and expected.txt list different cases"
    );
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}
