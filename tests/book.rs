//! The book's examples are tests: in every `book/src/*.md`, a ```flx code block followed (after
//! blank lines only) by an ```output block runs in a fresh session and must print exactly
//! the output block. Every failing example is listed with its file and line.

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

use tessera::diag::render;
use tessera::Session;

/// A writer whose bytes can be read after the session that owns it is gone.
#[derive(Clone, Default)]
struct SharedBuffer(Arc<Mutex<Vec<u8>>>);

impl Write for SharedBuffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| std::io::Error::other("poisoned buffer"))?
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One runnable example: where it starts, its program, its expected output.
#[derive(Debug, PartialEq)]
struct Example {
    line: usize,
    program: String,
    output: String,
}

/// The fenced blocks of a markdown text: (line of the opening fence, info string, body).
fn fenced_blocks(markdown: &str) -> Vec<(usize, String, String)> {
    let mut blocks = Vec::new();
    let mut open: Option<(usize, String, String)> = None;
    for (index, line) in markdown.lines().enumerate() {
        let trimmed = line.trim_start();
        match &mut open {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    open = Some((index + 1, info.trim().to_string(), String::new()));
                }
            }
            Some((_, _, body)) => {
                if trimmed.starts_with("```") {
                    blocks.extend(open.take());
                } else {
                    body.push_str(line);
                    body.push('\n');
                }
            }
        }
    }
    blocks
}

/// The examples of a markdown text: each `flx` block directly followed by an `output`
/// block (only blank lines between them).
fn examples(markdown: &str) -> Vec<Example> {
    let lines: Vec<&str> = markdown.lines().collect();
    let blocks = fenced_blocks(markdown);
    let mut found = Vec::new();
    for pair in blocks.windows(2) {
        let (program_line, program_info, program) = &pair[0];
        let (output_line, output_info, output) = &pair[1];
        let program_end = program_line + program.lines().count() + 1;
        let only_blank_between = lines[program_end..output_line - 1]
            .iter()
            .all(|line| line.trim().is_empty());
        if program_info == "flx" && output_info == "output" && only_blank_between {
            found.push(Example {
                line: *program_line,
                program: program.clone(),
                output: output.clone(),
            });
        }
    }
    found
}

fn run_example(example: &Example) -> Result<(), String> {
    let buffer = SharedBuffer::default();
    let mut session = Session::new(Box::new(buffer.clone()));
    let result = session.run_source(&example.program);
    session.flush();
    drop(session);
    let printed = String::from_utf8_lossy(&buffer.0.lock().expect("buffer")).into_owned();
    if let Err(diags) = result {
        return Err(render(&diags, "example.flx", &example.program, false));
    }
    if printed != example.output {
        return Err(format!(
            "--- expected\n{}--- printed\n{printed}",
            example.output
        ));
    }
    Ok(())
}

#[test]
fn examples_are_found_only_when_an_output_block_follows() {
    let markdown = "text\n```flx\nprintln 1;\n```\n\n```output\n1\n```\n```flx\nx\n```\nprose\n```output\n2\n```\n";
    assert_eq!(
        examples(markdown),
        vec![Example {
            line: 2,
            program: "println 1;\n".to_string(),
            output: "1\n".to_string(),
        }]
    );
}

#[test]
fn every_book_example_prints_its_output() {
    let book = Path::new(env!("CARGO_MANIFEST_DIR")).join("book").join("src");
    let mut chapters: Vec<_> = std::fs::read_dir(&book)
        .expect("the book folder exists")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|extension| extension == "md"))
        .collect();
    chapters.sort();
    let mut total = 0;
    let mut failures = Vec::new();
    for chapter in &chapters {
        let markdown = std::fs::read_to_string(chapter).expect("a readable chapter");
        let name = chapter.file_name().unwrap_or_default().to_string_lossy();
        for example in examples(&markdown) {
            total += 1;
            if let Err(reason) = run_example(&example) {
                failures.push(format!("== {name}:{}\n{reason}", example.line));
            }
        }
    }
    assert!(
        total >= 10,
        "expected at least 10 book examples, found {total}"
    );
    assert!(
        failures.is_empty(),
        "{} of {total} book examples failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
