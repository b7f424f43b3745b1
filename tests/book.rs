//! Every code block of the book is a test. The book is every `book/*.md` and
//! `book/src/**/*.md`; the conventions of its code blocks:
//!
//! - ```` ```flx ```` a program. Followed (only blank lines between) by ```` ```output ````, it
//!   runs in a fresh session and its stdout must be the output block exactly. Followed by
//!   ```` ```error ```` (after the output block, if any), it must fail and the error block is
//!   the rendered diagnostic, without colour, for the file name `example.flx`. Alone, it must
//!   check and run without a diagnostic.
//! - ```` ```repl ```` a REPL session: `> ` starts an input line, `. ` a continuation line of
//!   a multi-line chunk, every other line is what the REPL prints (values, results, error
//!   text) when the input lines are piped to it.
//! - ```` ```flx,ignore ```` is not run (counted and reported); ```` ```sh ````, ```` ```text ````
//!   are not Tessera. Any other info string (or none) is an error.
//!
//! Diagnostics and REPL transcripts are compared line by line without trailing white space
//! (markdown editors strip it); program output is compared exactly.
//!
//! `BOOK_BLESS=1 cargo test --test book` rewrites every `output`, `error` and `repl` block that
//! differs with what the interpreter prints, and the generated library reference: read the
//! diff before committing it.
//!
//! The library reference (`book/src/library.md`) must be what `tessera doc` generates, and the
//! error index (`book/src/errors/`) must have a page for every code the interpreter can emit.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

// The REPL and the documentation generator are modules of the binary: the book's test compiles
// them in, as the binary does, and drives them in process.
#[allow(dead_code)]
#[path = "../src/docs.rs"]
mod docs;
#[allow(dead_code)]
#[path = "../src/repl/mod.rs"]
mod repl;

use repl::{LineOutcome, Repl};
use tessera::{doc_text, primitive_entries, render, Session, Settings, SharedBuffer, STDLIB};

/// Where the generated library reference lives in the repository.
pub const LIBRARY_PAGE: &str = "book/src/library.md";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn blessing() -> bool {
    std::env::var_os("BOOK_BLESS").is_some_and(|v| !v.is_empty() && v != "0")
}

/// One fenced block: its info string, body, and lines (1-based) of the opening fence and of
/// the first body line.
#[derive(Clone, Debug, PartialEq)]
struct Block {
    info: String,
    body: String,
    fence_line: usize,
    /// The line after the closing fence.
    end_line: usize,
}

/// The fence that opens or closes a block: a run of at least three backticks or tildes at
/// the start of a (trimmed) line, and the rest of the line.
fn fence(trimmed: &str) -> Option<(&str, &str)> {
    let first = trimmed.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let run = trimmed.len() - trimmed.trim_start_matches(first).len();
    (run >= 3).then(|| trimmed.split_at(run))
}

/// The fenced blocks of a markdown text. A body line loses the indentation of its fence.
fn fenced_blocks(markdown: &str) -> Result<Vec<Block>, String> {
    let mut blocks = Vec::new();
    // (line of the opening fence, its indentation, its marker, info string, body)
    let mut open: Option<(usize, usize, String, String, String)> = None;
    for (index, line) in markdown.lines().enumerate() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        match &mut open {
            None => {
                if let Some((marker, info)) = fence(trimmed) {
                    open = Some((
                        index + 1,
                        indent,
                        marker.to_string(),
                        info.trim().to_string(),
                        String::new(),
                    ));
                }
            }
            Some((fence_line, fence_indent, marker, info, body)) => {
                let closes = fence(trimmed).is_some_and(|(run, rest)| {
                    run.starts_with(&marker[..1])
                        && run.len() >= marker.len()
                        && rest.trim().is_empty()
                });
                if closes {
                    blocks.push(Block {
                        info: std::mem::take(info),
                        body: std::mem::take(body),
                        fence_line: *fence_line,
                        end_line: index + 2,
                    });
                    open = None;
                } else {
                    let strip = indent.min(*fence_indent);
                    body.push_str(&line[strip..]);
                    body.push('\n');
                }
            }
        }
    }
    match open {
        Some((line, ..)) => Err(format!("line {line}: this code block is never closed")),
        None => Ok(blocks),
    }
}

/// What a group of blocks asks for.
#[derive(Debug, PartialEq)]
enum Case {
    /// A program, its expected stdout and its expected diagnostic.
    Program {
        line: usize,
        program: String,
        output: Option<Block>,
        error: Option<Block>,
    },
    Repl(Block),
    Ignored,
}

/// The block kinds of the conventions. `felix` is the old name of `flx`, accepted only in the
/// chapters that still sit directly in `book/` (before the move to `book/src/`).
fn known(info: &str, legacy: bool) -> bool {
    matches!(
        info,
        "flx" | "flx,ignore" | "output" | "error" | "repl" | "sh" | "text"
    ) || (legacy && info == "felix")
}

/// The test cases of one markdown file, or the reasons (with lines) it breaks the conventions.
fn cases(markdown: &str, legacy: bool) -> Result<Vec<Case>, Vec<String>> {
    let blocks = fenced_blocks(markdown).map_err(|e| vec![e])?;
    let lines: Vec<&str> = markdown.lines().collect();
    let adjacent = |a: &Block, b: &Block| {
        lines[a.end_line - 1..b.fence_line - 1]
            .iter()
            .all(|line| line.trim().is_empty())
    };
    let mut found = Vec::new();
    let mut problems = Vec::new();
    let mut index = 0;
    while index < blocks.len() {
        let block = &blocks[index];
        index += 1;
        if !known(&block.info, legacy) {
            problems.push(format!(
                "line {}: unknown code block info string `{}` (use flx, flx,ignore, output, error, repl, sh or text)",
                block.fence_line, block.info
            ));
            continue;
        }
        match block.info.as_str() {
            "flx" | "felix" => {
                let mut output = None;
                let mut error = None;
                let mut last = block;
                if let Some(next) = blocks.get(index) {
                    if next.info == "output" && adjacent(last, next) {
                        output = Some(next.clone());
                        last = next;
                        index += 1;
                    }
                }
                if let Some(next) = blocks.get(index) {
                    if next.info == "error" && adjacent(last, next) {
                        error = Some(next.clone());
                        index += 1;
                    }
                }
                found.push(Case::Program {
                    line: block.fence_line,
                    program: block.body.clone(),
                    output,
                    error,
                });
            }
            "output" | "error" => problems.push(format!(
                "line {}: an `{}` block must follow a `flx` block (only blank lines between)",
                block.fence_line, block.info
            )),
            "repl" => found.push(Case::Repl(block.clone())),
            "flx,ignore" => found.push(Case::Ignored),
            _ => {}
        }
    }
    if problems.is_empty() {
        Ok(found)
    } else {
        Err(problems)
    }
}

/// The text without trailing white space on each line.
fn trimmed_lines(text: &str) -> String {
    text.lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
        .trim_end_matches('\n')
        .to_string()
}

/// The first line (0-based) where two texts differ.
fn first_difference(expected: &str, actual: &str) -> usize {
    let expected: Vec<&str> = expected.lines().collect();
    let actual: Vec<&str> = actual.lines().collect();
    (0..expected.len().max(actual.len()))
        .find(|&i| expected.get(i) != actual.get(i))
        .unwrap_or(0)
}

/// A failure of one block, and what blessing would write into it.
struct Failure {
    line: usize,
    reason: String,
    fix: Option<(Block, String)>,
}

fn mismatch(what: &str, block: &Block, expected: &str, actual: &str) -> Failure {
    let offset = first_difference(expected, actual);
    Failure {
        line: block.fence_line + 1 + offset,
        reason: format!(
            "the {what} differs from line {} of its block on\n--- expected\n{expected}--- actual\n{actual}",
            offset + 1
        ),
        fix: Some((block.clone(), actual.to_string())),
    }
}

fn run_case(
    line: usize,
    program: &str,
    output: &Option<Block>,
    error: &Option<Block>,
) -> Vec<Failure> {
    let (printed, result) = docs::run_program(program);
    let mut failures = Vec::new();
    if let Some(block) = output {
        if printed != block.body {
            failures.push(mismatch("output", block, &block.body, &printed));
        }
    }
    match (result, error) {
        (Ok(()), None) => {}
        (Err(diags), None) => failures.push(Failure {
            line,
            reason: format!(
                "the program fails (add an `error` block if it should):\n{}",
                render(&diags, "example.flx", program, false)
            ),
            fix: None,
        }),
        (Ok(()), Some(block)) => failures.push(Failure {
            line: block.fence_line,
            reason: "the program runs without error, but an `error` block follows it".to_string(),
            fix: None,
        }),
        (Err(diags), Some(block)) => {
            let rendered = render(&diags, "example.flx", program, false);
            let (expected, actual) = (trimmed_lines(&block.body), trimmed_lines(&rendered));
            if expected != actual {
                failures.push(mismatch(
                    "diagnostic",
                    block,
                    &format!("{expected}\n"),
                    &format!("{actual}\n"),
                ));
            }
        }
    }
    failures
}

/// The transcript the REPL produces for the input lines of `block`, in the block's own form
/// (`> ` / `. ` input lines, then what the REPL printed after each).
fn repl_transcript(block: &Block) -> String {
    let buffer = SharedBuffer::default();
    let session = Session::new(
        Settings::default()
            .with_stdout(buffer.clone())
            .with_stderr(buffer.clone()),
    );
    let mut repl = Repl::new(session, Box::new(buffer.clone()), false);
    let mut transcript = String::new();
    for line in block.body.lines() {
        let input = line
            .strip_prefix("> ")
            .or_else(|| line.strip_prefix(". "))
            .or_else(|| (line == ">" || line == ".").then_some(""));
        let Some(input) = input else { continue };
        let prompt = if repl.is_continuing() { ". " } else { "> " };
        transcript.push_str(prompt.trim_end());
        if !input.is_empty() {
            transcript.push(' ');
            transcript.push_str(input);
        }
        transcript.push('\n');
        let outcome = repl.feed_line(input);
        transcript.push_str(&buffer.text());
        buffer.clear();
        if outcome == LineOutcome::Quit {
            return transcript;
        }
    }
    repl.finish();
    transcript.push_str(&buffer.text());
    transcript
}

fn run_repl(block: &Block) -> Vec<Failure> {
    let transcript = repl_transcript(block);
    let (expected, actual) = (trimmed_lines(&block.body), trimmed_lines(&transcript));
    if expected == actual {
        return Vec::new();
    }
    vec![mismatch(
        "REPL transcript",
        block,
        &format!("{expected}\n"),
        &format!("{actual}\n"),
    )]
}

/// Every markdown file of the book: `book/*.md` and `book/src/**/*.md`, sorted, with whether
/// it is an old-layout chapter (directly in `book/`).
fn book_files() -> Vec<(PathBuf, bool)> {
    fn walk(folder: &Path, files: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(folder) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, files);
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    let book = root().join("book");
    let mut files: Vec<(PathBuf, bool)> = std::fs::read_dir(&book)
        .expect("the book folder exists")
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.is_file() && path.extension().is_some_and(|e| e == "md"))
        .map(|path| (path, true))
        .collect();
    let mut nested = Vec::new();
    walk(&book.join("src"), &mut nested);
    files.extend(nested.into_iter().map(|path| (path, false)));
    files.sort();
    files
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Replace the bodies of `fixes`' blocks in `markdown` (blessing).
fn bless(markdown: &str, mut fixes: Vec<(Block, String)>) -> String {
    fixes.sort_by_key(|(block, _)| std::cmp::Reverse(block.fence_line));
    let mut lines: Vec<String> = markdown.lines().map(str::to_string).collect();
    for (block, body) in fixes {
        let first = block.fence_line; // index of the first body line (0-based)
        let last = block.end_line - 2; // index of the closing fence
        let indent: String = lines[block.fence_line - 1]
            .chars()
            .take_while(|c| c.is_whitespace())
            .collect();
        let new: Vec<String> = body
            .trim_end_matches('\n')
            .lines()
            .map(|line| {
                format!("{indent}{}", line.trim_end())
                    .trim_end()
                    .to_string()
            })
            .collect();
        lines.splice(first..last, new);
    }
    lines.join("\n") + "\n"
}

#[test]
fn every_block_of_the_book_is_right() {
    let files = book_files();
    let mut failures = Vec::new();
    let (mut programs, mut sessions, mut ignored) = (0, 0, 0);
    for (path, legacy) in &files {
        let name = relative(path);
        let markdown = std::fs::read_to_string(path).expect("a readable chapter");
        let found = match cases(&markdown, *legacy) {
            Ok(found) => found,
            Err(problems) => {
                failures.extend(problems.into_iter().map(|p| format!("== {name}: {p}")));
                continue;
            }
        };
        let mut fixes = Vec::new();
        for case in &found {
            let results = match case {
                Case::Program {
                    line,
                    program,
                    output,
                    error,
                } => {
                    programs += 1;
                    run_case(*line, program, output, error)
                }
                Case::Repl(block) => {
                    sessions += 1;
                    run_repl(block)
                }
                Case::Ignored => {
                    ignored += 1;
                    Vec::new()
                }
            };
            for failure in results {
                failures.push(format!("== {name}:{}: {}", failure.line, failure.reason));
                fixes.extend(failure.fix);
            }
        }
        if blessing() && !fixes.is_empty() {
            std::fs::write(path, bless(&markdown, fixes)).expect("a writable chapter");
        }
    }
    eprintln!(
        "book: {programs} programs, {sessions} REPL sessions, {ignored} blocks marked flx,ignore (not run), in {} files",
        files.len()
    );
    assert!(
        programs >= 10,
        "expected at least 10 programs in the book, found {programs}"
    );
    assert!(
        failures.is_empty(),
        "{} book blocks are wrong{}:\n{}",
        failures.len(),
        if blessing() {
            " (blessed: the files are rewritten)"
        } else {
            " (BOOK_BLESS=1 rewrites output, error and repl blocks)"
        },
        failures.join("\n")
    );
}

#[test]
fn the_library_reference_is_generated_from_the_table() {
    let generated = docs::library_page().unwrap_or_else(|failures| panic!("{failures}"));
    let path = root().join(LIBRARY_PAGE);
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    if committed == generated {
        return;
    }
    if blessing() {
        std::fs::write(&path, &generated).expect("a writable library page");
        return;
    }
    let line = first_difference(&committed, &generated) + 1;
    panic!(
        "{}:{line}: the library reference differs from what the primitive table and stdlib/ \
         give; regenerate it with `cargo run -- doc {}` (or BOOK_BLESS=1 cargo test --test book)\n\
         --- committed line {line}\n{}\n--- generated line {line}\n{}",
        LIBRARY_PAGE,
        LIBRARY_PAGE,
        committed.lines().nth(line - 1).unwrap_or("(end of file)"),
        generated.lines().nth(line - 1).unwrap_or("(end of file)"),
    );
}

#[test]
fn every_stdlib_file_is_documented_in_the_reference() {
    let mut files: Vec<String> = std::fs::read_dir(root().join("stdlib"))
        .expect("the stdlib folder exists")
        .flatten()
        .filter_map(|entry| entry.file_name().to_str().map(str::to_string))
        .filter(|name| name.ends_with(".flx"))
        .collect();
    files.sort();
    let mut listed: Vec<String> = STDLIB.iter().map(|(f, _)| f.to_string()).collect();
    listed.sort();
    assert_eq!(
        files, listed,
        "tessera::STDLIB must list every stdlib/*.flx file"
    );
    for (file, source) in STDLIB {
        let on_disk = std::fs::read_to_string(root().join("stdlib").join(file)).expect("readable");
        assert_eq!(&on_disk, source, "STDLIB's {file} is not stdlib/{file}");
    }
}

#[test]
fn doc_in_the_repl_is_the_reference_entry() {
    let mut session = Session::new(Settings::default().with_stdout(std::io::sink()));
    for entry in primitive_entries() {
        let name = &entry.names[0];
        let text = session.doc_of(name).expect("every primitive has :doc");
        assert_eq!(text, doc_text(&entry), ":doc {name}");
    }
    for entry in session.stdlib_entries() {
        for name in &entry.names {
            assert_eq!(session.doc_of(name), Some(doc_text(&entry)), ":doc {name}");
        }
    }
}

/// Every error code the interpreter can emit: the `"E0…"`/`"R0…"` string literals of the
/// non-test source (every code is written once as a literal where the diagnostic is made:
/// `check/error.rs`, `eval/error.rs`, `syntax/`, `diag.rs`, `lib.rs`, `repl.rs`, …).
fn emitted_codes() -> BTreeSet<String> {
    fn walk(folder: &Path, codes: &mut BTreeSet<String>) {
        for entry in std::fs::read_dir(folder)
            .expect("a readable source folder")
            .flatten()
        {
            let path = entry.path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if path.is_dir() {
                walk(&path, codes);
                continue;
            }
            if !name.ends_with(".rs") || name == "tests.rs" || name.starts_with("test_") {
                continue;
            }
            let source = std::fs::read_to_string(&path).expect("readable source");
            // Unit tests at the end of a file are not code the interpreter runs.
            let source = source.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
            let bytes = source.as_bytes();
            for start in 0..bytes.len().saturating_sub(6) {
                let literal = &bytes[start..start + 7];
                if literal[0] == b'"'
                    && matches!(literal[1], b'E' | b'R')
                    && literal[2..6].iter().all(u8::is_ascii_digit)
                    && literal[6] == b'"'
                {
                    codes.insert(String::from_utf8_lossy(&literal[1..6]).into_owned());
                }
            }
        }
    }
    let mut codes = BTreeSet::new();
    walk(&root().join("src"), &mut codes);
    codes
}

/// Codes no program in a code block can show: E0103 needs a file that is not UTF-8, R0000 is a
/// bug in Tessera, R0012 needs Ctrl-C. Their pages describe them in prose.
const NOT_DEMONSTRABLE: &[&str] = &["E0103", "R0000", "R0012"];

#[test]
fn every_error_code_has_a_page() {
    let codes = emitted_codes();
    assert!(codes.len() >= 20, "found only {codes:?}");
    let folder = root().join("book").join("src").join("errors");
    let index = std::fs::read_to_string(folder.join("README.md")).unwrap_or_default();
    let mut problems = Vec::new();
    for code in &codes {
        let file = format!("book/src/errors/{code}.md");
        let Ok(page) = std::fs::read_to_string(folder.join(format!("{code}.md"))) else {
            problems.push(format!("{code} has no page: write {file}"));
            continue;
        };
        if docs::explain(code) != Some(page.as_str()) {
            problems.push(format!(
                "{file}: `tessera --explain {code}` does not print it (rebuild)"
            ));
        }
        if !index.contains(&format!("({code}.md)")) {
            problems.push(format!("book/src/errors/README.md does not link {code}.md"));
        }
        if !page.starts_with(&format!("# {code}")) {
            problems.push(format!("{file}:1: the page must start with `# {code}`"));
        }
        let Ok(found) = cases(&page, false) else {
            continue; // reported by every_block_of_the_book_is_right
        };
        let shows_error = found.iter().any(|case| {
            matches!(case, Case::Program { error: Some(block), .. }
                if block.body.starts_with(&format!("[{code}]")))
        });
        let shows_fix = found
            .iter()
            .any(|case| matches!(case, Case::Program { error: None, .. }));
        if !NOT_DEMONSTRABLE.contains(&code.as_str()) {
            if !shows_error {
                problems.push(format!(
                    "{file}: no `flx` block followed by an `error` block starting with `[{code}]`"
                ));
            }
            if !shows_fix {
                problems.push(format!("{file}: no corrected `flx` block (the fix)"));
            }
        }
    }
    for (code, _) in docs::ERROR_PAGES {
        if !codes.contains(*code) {
            problems.push(format!(
                "book/src/errors/{code}.md: the interpreter never emits {code} (remove the page?)"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "the error index is incomplete (codes found: {}):\n{}",
        codes.iter().cloned().collect::<Vec<_>>().join(" "),
        problems.join("\n")
    );
}

#[test]
fn blocks_are_paired_by_adjacency() {
    let markdown = "text\n```flx\nprintln 1;\n```\n\n```output\n1\n```\n```flx\nx\n```\nprose\n```output\n2\n```\n";
    let problems = cases(markdown, false).expect_err("a lone output block");
    assert_eq!(
        problems,
        vec![
            "line 13: an `output` block must follow a `flx` block (only blank lines between)"
                .to_string()
        ]
    );
    let markdown = "```flx\nx;\n```\n```output\n1\n```\n\n```error\nE\n```\n```flx,ignore\ny\n```\n```sh\nls\n```\n";
    let found = cases(markdown, false).expect("valid");
    assert_eq!(found.len(), 2);
    match &found[0] {
        Case::Program {
            line,
            program,
            output,
            error,
        } => {
            assert_eq!((*line, program.as_str()), (1, "x;\n"));
            assert_eq!(output.as_ref().map(|b| b.body.as_str()), Some("1\n"));
            assert_eq!(
                error.as_ref().map(|b| (b.fence_line, b.body.as_str())),
                Some((8, "E\n"))
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(found[1], Case::Ignored);
}

#[test]
fn unknown_info_strings_fail() {
    let problems = cases("```felix\nx\n```\n```\ny\n```\n", false).expect_err("unknown");
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].starts_with("line 1: unknown code block info string `felix`"));
    assert!(problems[1].starts_with("line 4: unknown code block info string ``"));
    assert!(
        cases("```felix\nx\n```\n", true).is_ok(),
        "legacy chapters may say felix"
    );
}

#[test]
fn repl_blocks_replay_their_input() {
    let block = Block {
        info: "repl".into(),
        body: "> 1 + 2\nwrong\n> fun f (x: int) =>\n> x;\n> :quit\n> 5\n".into(),
        fence_line: 1,
        end_line: 8,
    };
    assert_eq!(
        repl_transcript(&block),
        "> 1 + 2\n3 : int\n> fun f (x: int) =>\n. x;\n> :quit\n"
    );
}

#[test]
fn blessing_rewrites_only_the_failing_bodies() {
    let markdown = "a\n```flx\np\n```\n```output\nold\nold2\n```\nz\n";
    let blocks = fenced_blocks(markdown).expect("closed");
    let fixed = bless(markdown, vec![(blocks[1].clone(), "new\n".to_string())]);
    assert_eq!(fixed, "a\n```flx\np\n```\n```output\nnew\n```\nz\n");
}
