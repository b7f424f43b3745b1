//! The REPL (L9.4): reads lines into chunks, evaluates them in one `Session`, answers the
//! `:` commands. This is the only module that imports rustyline.
//!
//! On a terminal it shows a banner and the prompts `> ` and `. `, keeps a history in
//! `~/.tessera_history` and completes commands and keywords. When stdin is not a terminal it
//! prints no banner, no prompts and no echo: stdout carries only program output and results.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;

use rustyline::completion::Completer;
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};

use crate::diag::{self, Diagnostic, Stage};
use crate::syntax::Span;
use crate::{is_blank_source, ChunkResult, Session};

/// The file name diagnostics of REPL chunks and commands are rendered under.
pub const REPL_NAME: &str = "<repl>";

/// The REPL commands, in the order `:help` lists them.
pub const COMMANDS: [(&str, &str); 11] = [
    (":type EXPR", "the type of an expression"),
    (
        ":type -v EXPR",
        "the type and the type functor that derived it (promote)",
    ),
    (
        ":doc NAME",
        "the types, description and an example of a library primitive or operator",
    ),
    (
        ":kind TYPE",
        "the most specific kind: UNITSUM, COMPACTLINEAR or TYPE",
    ),
    (
        ":size TYPE",
        "the number of values of a compact linear type",
    ),
    (
        ":layout TYPE",
        "the mixed-radix layout of a compact type (or an array's index)",
    ),
    (
        ":iso A, B",
        "whether a reshape A :>> B is layout-identical, and why not",
    ),
    (
        ":load FILE",
        "run a file in this session (path relative to the current folder)",
    ),
    (":reset", "forget all definitions"),
    (":help", "this list"),
    (":quit", "leave the REPL (end of input does the same)"),
];

/// The words the terminal REPL completes besides the commands: the keywords of L1.3 that
/// start constructs, and common library names.
const COMPLETION_WORDS: &[&str] = &[
    "begin",
    "end",
    "do",
    "done",
    "if",
    "then",
    "elif",
    "else",
    "endif",
    "match",
    "with",
    "endmatch",
    "for",
    "in",
    "while",
    "until",
    "upto",
    "downto",
    "break",
    "continue",
    "return",
    "var",
    "val",
    "fun",
    "proc",
    "gen",
    "typedef",
    "struct",
    "variant",
    "case",
    "of",
    "proj",
    "aproj",
    "ident",
    "caseno",
    "and",
    "or",
    "not",
    "true",
    "false",
    "print",
    "println",
    "str",
    "repr",
    "_strr",
    "map",
    "fold_left",
    "fold_right",
    "len",
    "transpose",
    "natural",
    "bool",
    "int",
    "uint",
    "long",
    "double",
    "float",
    "string",
    "char",
    "size",
    // L11 library (spec L11.22-L11.30).
    "assert",
    "tiny",
    "utiny",
    "short",
    "ushort",
    "sqrt",
    "pow",
    "abs",
    "min",
    "max",
    "ord",
    "toupper",
    "tolower",
    "strip",
    "startswith",
    "endswith",
    "fold",
    "mem",
    "sort",
    "subarray",
    "cstdout",
    "cstderr",
    "fprintln",
    "eprintln",
];

/// What the caller should do after a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineOutcome {
    /// Read the next line.
    Continue,
    /// `:quit`: stop reading; later lines are not read.
    Quit,
}

/// The REPL's state: the session, the chunk being accumulated, and where diagnostics go.
pub struct Repl {
    session: Session,
    diagnostics: Box<dyn Write>,
    color: bool,
    pending: String,
}

impl Repl {
    /// A REPL over `session`, rendering diagnostics to `diagnostics` (stderr in the binary).
    pub fn new(session: Session, diagnostics: Box<dyn Write>, color: bool) -> Repl {
        Repl {
            session,
            diagnostics,
            color,
            pending: String::new(),
        }
    }

    /// Is a chunk waiting for more lines (so the continuation prompt applies)?
    pub fn is_continuing(&self) -> bool {
        !is_blank_source(&self.pending)
    }

    /// The session, for the banner and for tests.
    pub fn session(&mut self) -> &mut Session {
        &mut self.session
    }

    /// Feed one line (without its newline). A command is recognised only where a chunk starts.
    pub fn feed_line(&mut self, line: &str) -> LineOutcome {
        let outcome = if !self.is_continuing() && line.trim_start().starts_with(':') {
            self.pending.clear();
            self.run_command(line)
        } else {
            self.pending.push_str(line);
            self.pending.push('\n');
            self.evaluate_pending();
            LineOutcome::Continue
        };
        self.session.flush();
        outcome
    }

    /// Forget a partly typed chunk (Ctrl-C on a terminal).
    pub fn discard_pending(&mut self) {
        self.pending.clear();
    }

    /// End of input: a pending incomplete chunk is a syntax error (E0100).
    pub fn finish(&mut self) {
        if self.is_continuing() {
            let chunk = std::mem::take(&mut self.pending);
            let end = chunk.len();
            let diag = Diagnostic::new(
                Stage::Static,
                "E0100",
                "unexpected end of input: this chunk is incomplete",
                Span::new(end, end),
            )
            .with_label("the input ended here")
            .with_help("close every bracket and block (`done`, `endif`, `endmatch`, `}`)");
            self.report(&[diag], REPL_NAME, &chunk);
        }
        self.session.flush();
    }

    fn evaluate_pending(&mut self) {
        match self.session.eval_chunk(&self.pending) {
            ChunkResult::Incomplete => {}
            ChunkResult::Done => self.pending.clear(),
            ChunkResult::Failed(diags) => {
                let chunk = std::mem::take(&mut self.pending);
                self.report(&diags, REPL_NAME, &chunk);
            }
        }
    }

    fn run_command(&mut self, line: &str) -> LineOutcome {
        let command_start = line.len() - line.trim_start().len();
        let name_end = line[command_start..]
            .find(char::is_whitespace)
            .map_or(line.len(), |length| command_start + length);
        let name = &line[command_start + 1..name_end];
        let argument = &line[name_end..];
        let answer = match name {
            "type" | "kind" | "size" | "layout" | "iso" | "doc" if argument.trim().is_empty() => {
                let what = if name == "type" {
                    "an expression"
                } else if name == "doc" {
                    "a name"
                } else if name == "iso" {
                    "two types `A, B`"
                } else {
                    "a type"
                };
                self.command_error(&format!("`:{name}` needs {what}"));
                return LineOutcome::Continue;
            }
            "type" => self.session.type_of(argument),
            "doc" => match self.session.doc_of(argument) {
                Some(text) => Ok(text),
                None => {
                    self.command_error(&format!(
                        "no documentation for `{}`: `:doc` knows the library primitives and operators",
                        argument.trim()
                    ));
                    return LineOutcome::Continue;
                }
            },
            "kind" => self.session.kind_of(argument),
            "size" => self.session.size_of(argument),
            "layout" => self.session.layout_of(argument),
            "iso" => self.session.iso_of(argument),
            "load" => {
                self.load_file(argument.trim());
                return LineOutcome::Continue;
            }
            "reset" | "help" | "quit" if !argument.trim().is_empty() => {
                self.command_error(&format!("`:{name}` takes no argument"));
                return LineOutcome::Continue;
            }
            "reset" => {
                self.session.reset();
                return LineOutcome::Continue;
            }
            "help" => {
                self.print_help();
                return LineOutcome::Continue;
            }
            "quit" => return LineOutcome::Quit,
            _ => {
                self.command_error(&format!(
                    "unknown command `:{name}` (`:help` lists the commands)"
                ));
                return LineOutcome::Continue;
            }
        };
        match answer {
            Ok(text) => self.session.print_line(&text),
            Err(diags) => {
                let shifted: Vec<Diagnostic> = diags
                    .into_iter()
                    .map(|diag| diag.shifted(name_end))
                    .collect();
                self.report(&shifted, REPL_NAME, line);
            }
        }
        LineOutcome::Continue
    }

    fn load_file(&mut self, path: &str) {
        if path.is_empty() {
            self.command_error("`:load` needs a file name");
            return;
        }
        match std::fs::read_to_string(path) {
            Ok(src) => {
                if let Err(diags) = self.session.run_source(&src) {
                    self.report(&diags, path, &src);
                }
            }
            Err(error) => self.command_error(&format!("cannot read `{path}`: {error}")),
        }
    }

    fn print_help(&mut self) {
        self.session
            .print_line("Commands (at the start of a chunk):");
        for (usage, meaning) in COMMANDS {
            self.session.print_line(&format!("  {usage:<14}{meaning}"));
        }
        self.session.print_line(
            "Anything else is Tessera: an expression prints VALUE : TYPE, statements run as in a script.",
        );
    }

    fn command_error(&mut self, message: &str) {
        self.session.flush();
        let _ = writeln!(self.diagnostics, "error: {message}");
        let _ = self.diagnostics.flush();
    }

    fn report(&mut self, diags: &[Diagnostic], file_name: &str, src: &str) {
        self.session.flush();
        let rendered = diag::render(diags, file_name, src, self.color);
        let _ = self.diagnostics.write_all(rendered.as_bytes());
        let _ = self.diagnostics.flush();
    }
}

/// Run the REPL on stdin until `:quit` or end of input; returns the exit status (always 0:
/// errors are reported and the session goes on).
pub fn run(session: Session) -> i32 {
    let interactive = std::io::stdin().is_terminal();
    let color =
        interactive && std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let mut repl = Repl::new(session, Box::new(std::io::stderr()), color);
    if interactive {
        run_terminal(&mut repl);
    } else {
        run_lines(&mut repl, std::io::stdin().lock());
    }
    0
}

/// Feed every line of `input` to the REPL (no prompts, no echo), then finish. Bytes that are
/// not UTF-8 are replaced, so reading never fails on them.
pub fn run_lines(repl: &mut Repl, mut input: impl BufRead) {
    let mut buffer = Vec::new();
    loop {
        buffer.clear();
        match input.read_until(b'\n', &mut buffer) {
            Ok(0) => break,
            Ok(_) => {
                let line = String::from_utf8_lossy(&buffer);
                let line = line.strip_suffix('\n').unwrap_or(&line);
                let line = line.strip_suffix('\r').unwrap_or(line);
                if repl.feed_line(line) == LineOutcome::Quit {
                    repl.session().flush();
                    return;
                }
            }
            Err(error) => {
                repl.command_error(&format!("cannot read the input: {error}"));
                break;
            }
        }
    }
    repl.finish();
}

fn run_terminal(repl: &mut Repl) {
    let mut editor = match Editor::<ReplHelper, DefaultHistory>::new() {
        Ok(editor) => editor,
        Err(error) => {
            repl.command_error(&format!(
                "cannot start the line editor ({error}); reading plain lines"
            ));
            run_lines(repl, std::io::stdin().lock());
            return;
        }
    };
    editor.set_helper(Some(ReplHelper));
    let history = history_path();
    if let Some(path) = &history {
        let _ = editor.load_history(path);
    }
    repl.session().print_line(&format!(
        "Tessera {}: Felix with compact linear types. `:help` lists the commands, `:quit` leaves.",
        env!("CARGO_PKG_VERSION")
    ));
    repl.session().flush();
    loop {
        let prompt = if repl.is_continuing() { ". " } else { "> " };
        match editor.readline(prompt) {
            Ok(line) => {
                if !line.trim().is_empty() {
                    let _ = editor.add_history_entry(line.as_str());
                }
                if repl.feed_line(&line) == LineOutcome::Quit {
                    break;
                }
            }
            Err(ReadlineError::Interrupted) => repl.discard_pending(),
            Err(ReadlineError::Eof) => {
                repl.finish();
                break;
            }
            Err(error) => {
                repl.command_error(&format!("cannot read the input: {error}"));
                break;
            }
        }
    }
    if let Some(path) = &history {
        let _ = editor.save_history(path);
    }
}

fn history_path() -> Option<PathBuf> {
    std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".tessera_history"))
}

/// The candidates for completing the word that ends at `position` in `line`: command names
/// for a word starting with `:` at the start of the line, keywords and library names
/// otherwise. Returns where the word starts.
pub fn completion_candidates(line: &str, position: usize) -> (usize, Vec<String>) {
    let before = &line[..position.min(line.len())];
    let word_start = before
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
        .map_or(0, |index| {
            index + before[index..].chars().next().map_or(1, char::len_utf8)
        });
    let word = &before[word_start..];
    if word.is_empty() {
        return (word_start, Vec::new());
    }
    let candidates = if word.starts_with(':') {
        if before[..word_start].trim().is_empty() {
            let mut commands: Vec<String> = COMMANDS
                .iter()
                .filter_map(|(usage, _)| usage.split(' ').next())
                .filter(|command| command.starts_with(word))
                .map(str::to_string)
                .collect();
            commands.dedup();
            commands
        } else {
            Vec::new()
        }
    } else {
        COMPLETION_WORDS
            .iter()
            .filter(|candidate| candidate.starts_with(word))
            .map(|candidate| candidate.to_string())
            .collect()
    };
    (word_start, candidates)
}

/// The rustyline helper: completion only (no hints, highlighting or validation; the parser
/// decides when a chunk is complete).
struct ReplHelper;

impl Completer for ReplHelper {
    type Candidate = String;

    fn complete(
        &self,
        line: &str,
        position: usize,
        _context: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        Ok(completion_candidates(line, position))
    }
}

impl Hinter for ReplHelper {
    type Hint = String;
}

impl Highlighter for ReplHelper {}

impl Validator for ReplHelper {}

impl Helper for ReplHelper {}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_completion(line: &str, expected_start: usize, expected: &[&str]) {
        let (start, candidates) = completion_candidates(line, line.len());
        assert_eq!(start, expected_start, "start for {line:?}");
        assert_eq!(candidates, expected, "candidates for {line:?}");
    }

    #[test]
    fn completes_commands_at_the_start_of_a_line() {
        check_completion(":ty", 0, &[":type"]);
        check_completion("  :l", 2, &[":layout", ":load"]);
        check_completion(
            ":",
            0,
            &[
                ":type", ":doc", ":kind", ":size", ":layout", ":iso", ":load", ":reset", ":help",
                ":quit",
            ],
        );
    }

    #[test]
    fn completes_keywords_inside_code() {
        check_completion("var x = tr", 8, &["true", "transpose"]);
        check_completion("endm", 0, &["endmatch"]);
        check_completion("x + :ty", 4, &[]);
        check_completion("x + ", 4, &[]);
    }
}

#[cfg(test)]
mod session_tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    /// A writer whose bytes stay readable after it is handed to the session or the REPL.
    #[derive(Clone, Default)]
    struct SharedBuffer(Arc<Mutex<Vec<u8>>>);

    impl SharedBuffer {
        fn text(&self) -> String {
            String::from_utf8_lossy(&self.0.lock().expect("buffer lock")).into_owned()
        }
    }

    impl Write for SharedBuffer {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .map_err(|_| std::io::Error::other("poisoned"))?
                .extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Feed `input` to a piped REPL; returns (stdout, stderr).
    fn transcript(input: &str) -> (String, String) {
        let stdout = SharedBuffer::default();
        let stderr = SharedBuffer::default();
        let session = Session::new(Box::new(stdout.clone()));
        let mut repl = Repl::new(session, Box::new(stderr.clone()), false);
        run_lines(&mut repl, input.as_bytes());
        drop(repl);
        (stdout.text(), stderr.text())
    }

    #[test]
    fn blank_and_comment_lines_print_nothing() {
        assert_eq!(
            transcript("\n// a comment\n   \n/* block */\n"),
            (String::new(), String::new())
        );
    }

    #[test]
    fn help_lists_every_command_after_a_comment() {
        let (stdout, stderr) = transcript("// first a comment\n:help\n");
        for (usage, _) in COMMANDS {
            assert!(stdout.contains(usage), "{usage} missing from\n{stdout}");
        }
        assert_eq!(stderr, "");
    }

    #[test]
    fn quit_stops_reading() {
        let (stdout, stderr) = transcript(":quit\n:help\n");
        assert_eq!((stdout.as_str(), stderr.as_str()), ("", ""));
    }

    #[test]
    fn bad_commands_are_errors_on_stderr_and_the_session_goes_on() {
        let (stdout, stderr) = transcript(
            ":bogus\n:type\n:iso   \n:reset now\n:load\n:load no_such_file.flx\n:help\n",
        );
        assert!(stdout.contains(":type EXPR"), "{stdout}");
        for expected in [
            "unknown command `:bogus`",
            "`:type` needs an expression",
            "`:iso` needs two types",
            "`:reset` takes no argument",
            "`:load` needs a file name",
            "cannot read `no_such_file.flx`",
        ] {
            assert!(
                stderr.contains(expected),
                "{expected:?} missing from\n{stderr}"
            );
        }
    }

    #[test]
    fn commands_are_recognised_after_leading_spaces_and_crlf() {
        let (stdout, _) = transcript("  :help\r\n");
        assert!(stdout.starts_with("Commands"), "{stdout}");
    }
}
