//! Parses every conformance program that CI expects to pass (those listed in
//! `.ci/conformance-pass.txt`): no syntax error except in the syntax-error programs, which must
//! each report an error on the line named by their `.fail` file. REPL transcripts are parsed
//! line by line as chunks.

use std::fs;
use std::path::{Path, PathBuf};

use crate::syntax::{parse_chunk, parse_program, ChunkParse};

/// Programs whose expected failure is a syntax error.
const SYNTAX_ERROR_PROGRAMS: &[&str] = &[
    "errors/syntax_error.flx",
    "errors/keyword_as_name.flx",
    "errors/if_then_statement.flx",
    "errors/comparison_chain.flx",
];

fn conformance_directory() -> PathBuf {
    let beside_crate = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/conformance"
    ));
    if beside_crate.is_dir() {
        beside_crate
    } else {
        PathBuf::from("/work/shared/conformance")
    }
}

fn files_with_extension(directory: &Path, extension: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![directory.to_path_buf()];
    while let Some(current) = pending.pop() {
        for entry in fs::read_dir(&current).expect("readable conformance directory") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|found| found == extension) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

/// The 1-based line of a byte offset.
fn line_of(source: &str, offset: usize) -> usize {
    source[..offset.min(source.len())].matches('\n').count() + 1
}

fn relative_name(directory: &Path, path: &Path) -> String {
    path.strip_prefix(directory)
        .expect("path inside the conformance directory")
        .to_string_lossy()
        .replace('\\', "/")
}

/// The programs of `.ci/conformance-pass.txt` (`folder/name` per line, `#` comments).
fn listed_programs(directory: &Path) -> Vec<PathBuf> {
    let list = fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/.ci/conformance-pass.txt"
    ))
    .expect("readable .ci/conformance-pass.txt");
    list.lines()
        .map(|line| line.split('#').next().unwrap_or("").trim())
        .filter(|entry| !entry.is_empty())
        .map(|entry| directory.join(format!("{entry}.flx")))
        .filter(|path| path.is_file())
        .collect()
}

#[test]
fn every_conformance_program_parses() {
    let directory = conformance_directory();
    let programs = listed_programs(&directory);
    assert!(
        !programs.is_empty(),
        "no conformance programs under {directory:?}"
    );
    let mut failures = Vec::new();
    for path in &programs {
        let name = relative_name(&directory, path);
        let source = fs::read_to_string(path).expect("readable program");
        let (_, errors) = parse_program(&source);
        if SYNTAX_ERROR_PROGRAMS.contains(&name.as_str()) {
            let fail =
                fs::read_to_string(path.with_extension("fail")).expect("readable .fail file");
            let expected_line: usize = fail.lines().next().unwrap().trim().parse().unwrap();
            let lines: Vec<usize> = errors
                .iter()
                .map(|error| line_of(&source, error.span.start))
                .collect();
            if !lines.contains(&expected_line) {
                failures.push(format!(
                    "{name}: expected an error on line {expected_line}, got {errors:?}"
                ));
            }
        } else if !errors.is_empty() {
            let described: Vec<String> = errors
                .iter()
                .map(|error| {
                    format!(
                        "line {}: {}",
                        line_of(&source, error.span.start),
                        error.message
                    )
                })
                .collect();
            failures.push(format!("{name}: {described:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_repl_transcript_parses_chunk_by_chunk() {
    let directory = conformance_directory();
    let transcripts = files_with_extension(&directory.join("repl"), "stdin");
    assert!(!transcripts.is_empty());
    let mut failures = Vec::new();
    let mut chunk_count = 0;
    for path in &transcripts {
        let name = relative_name(&directory, path);
        let text = fs::read_to_string(path).expect("readable transcript");
        // errors_continue.stdin deliberately contains one invalid chunk.
        let allowed_invalid: &[&str] = if name == "repl/errors_continue.stdin" {
            &["var b = ;"]
        } else {
            &[]
        };
        let mut pending = String::new();
        for line in text.lines() {
            if pending.is_empty() && line.starts_with(':') {
                continue;
            }
            if !pending.is_empty() {
                pending.push('\n');
            }
            pending.push_str(line);
            match parse_chunk(&pending) {
                ChunkParse::Incomplete => continue,
                ChunkParse::Complete(_) => chunk_count += 1,
                ChunkParse::Invalid(errors) => {
                    if !allowed_invalid.contains(&pending.trim()) {
                        failures.push(format!("{name}: {pending:?} is invalid: {errors:?}"));
                    }
                }
            }
            pending.clear();
        }
        if !pending.trim().is_empty() {
            failures.push(format!("{name}: incomplete chunk at end: {pending:?}"));
        }
    }
    assert!(chunk_count > 20);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
