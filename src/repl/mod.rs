//! The REPL: reads lines into chunks, evaluates them in one `Session`, answers the
//! `:` commands. This is the only module that imports rustyline.
//!
//! On a terminal it shows a banner and the prompts `> ` and `. `, appends every chunk to a
//! history file (`TESSERA_HISTORY`, else `~/.tessera_history`; a multi-line chunk is one
//! entry) and completes commands, keywords, names in scope, type names and file names. When
//! stdin is not a terminal it prints no banner, no prompts and no echo: stdout carries only
//! program output and results.
//!
//! Session rules: a chunk with a static error defines nothing and runs nothing; a runtime
//! error or Ctrl-C (reported on one line, `Interrupted.`) keeps what ran before it, its
//! definitions included, as a `:load`ed file does. Piped input ends with status 1 or 3 when a
//! chunk failed (0 with `--keep-going`).
//!
//! Display (see `tessera::Display`): the print limit applies to every REPL result, piped or
//! not (so a transcript shows what a person sees, and a huge array never floods a pipe);
//! matrices print as grids only when stdout is a terminal (or with `:show`); colours only on
//! a terminal without `NO_COLOR`.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rustyline::config::{CompletionType, Config};
use rustyline::error::ReadlineError;
use rustyline::history::DefaultHistory;
use rustyline::Editor;

use tessera::{
    exit_status, is_blank_source, render_with, ChunkResult, Diagnostic, Display, ScopeName, Session,
};

mod commands;
mod complete;
mod habits;
mod plot;

use complete::ReplHelper;

/// The file name diagnostics of REPL chunks and commands are rendered under.
pub const REPL_NAME: &str = "<repl>";

/// The most entries the history file keeps (older ones are dropped).
pub const HISTORY_SIZE: usize = 1000;

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
    /// The files `:load`ed, in order (`:reload` runs them again).
    loaded: Vec<String>,
    /// The names in scope, kept for the line editor's completion (terminal only).
    completion_names: Option<Arc<Mutex<Vec<ScopeName>>>>,
    /// The status a program asked for with `System::exit`: the session ends with it.
    exit_status: Option<i32>,
    /// The status of the first chunk or `:load` that failed (1 static, 3 runtime).
    failure: Option<i32>,
    /// `--keep-going`: failed chunks do not change the exit status.
    keep_going: bool,
    /// Reading from a person at a terminal (hints about unfinished chunks).
    interactive: bool,
    /// A hint about the unfinished chunk was given (once per chunk).
    hinted: bool,
    /// The chunks and commands entered, in order (`:history`, `:save`), with whether each
    /// ran without an error.
    entries: Vec<(String, bool)>,
    /// The lines of the chunk being entered.
    entry_lines: Vec<String>,
    /// The definitions seen in chunks and loaded files, latest last (`:info`, `:doc`).
    definitions: Vec<habits::Definition>,
    /// Doc comment lines (`///`, `//!`) entered on their own, for the next chunk.
    doc_lines: Vec<String>,
}

impl Repl {
    /// A REPL over `session`, rendering diagnostics to `diagnostics` (stderr in the binary).
    /// Results use the print limit; grids and colours are off (see [`Repl::with_display`]).
    pub fn new(mut session: Session, diagnostics: Box<dyn Write>, color: bool) -> Repl {
        session.set_display(Display {
            print_limit: Some(Display::DEFAULT_PRINT_LIMIT),
            ..Display::EXACT
        });
        Repl {
            session,
            diagnostics,
            color,
            pending: String::new(),
            loaded: Vec::new(),
            completion_names: None,
            exit_status: None,
            failure: None,
            keep_going: false,
            interactive: false,
            hinted: false,
            entries: Vec::new(),
            entry_lines: Vec::new(),
            definitions: Vec::new(),
            doc_lines: Vec::new(),
        }
    }

    /// Show matrices as grids (`grid`) and colour values and types (`color`): for a terminal.
    pub fn with_display(mut self, grid: bool, color: bool) -> Repl {
        let display = Display {
            grid,
            color,
            ..self.session.display()
        };
        self.session.set_display(display);
        self
    }

    /// Is a chunk waiting for more lines (so the continuation prompt applies)?
    pub fn is_continuing(&self) -> bool {
        !is_blank_source(&self.pending)
    }

    /// Failed chunks leave the exit status 0 (`--keep-going`).
    pub fn keep_going(mut self, keep_going: bool) -> Repl {
        self.keep_going = keep_going;
        self
    }

    /// The exit status of the session: the one `System::exit` asked for, else 1 or 3 when a
    /// chunk failed (a static or a runtime error; not with `--keep-going`), else 0.
    pub fn exit_status(&self) -> i32 {
        match (self.exit_status, self.failure) {
            (Some(status), _) => status,
            (None, Some(status)) if !self.keep_going => status,
            _ => 0,
        }
    }

    /// Note a failed chunk (for the exit status and `:history`).
    fn failed(&mut self, diags: &[Diagnostic]) {
        if self.failure.is_none() {
            self.failure = Some(exit_status(diags).max(1));
        }
        if let Some(entry) = self.entries.last_mut() {
            entry.1 = false;
        }
    }

    /// The session, for the banner and for tests.
    pub fn session(&mut self) -> &mut Session {
        &mut self.session
    }

    /// Feed one line (without its newline). A command is recognised only where a chunk starts.
    pub fn feed_line(&mut self, line: &str) -> LineOutcome {
        let outcome = if !self.is_continuing() && line.trim_start().starts_with(':') {
            self.pending.clear();
            self.entries.push((line.to_string(), true));
            self.run_command(line)
        } else if !self.is_continuing()
            && (line.trim_start().starts_with("///") || line.trim_start().starts_with("//!"))
        {
            // A doc comment typed on its own documents the next chunk's definition.
            self.doc_lines.push(line.to_string());
            LineOutcome::Continue
        } else if self.is_continuing() && line.trim().is_empty() {
            self.blank_line_in_chunk();
            LineOutcome::Continue
        } else {
            self.pending.push_str(line);
            self.pending.push('\n');
            self.entry_lines.push(line.to_string());
            self.evaluate_pending();
            LineOutcome::Continue
        };
        self.session.flush();
        if let Some(status) = self.session.exit_request() {
            self.exit_status = Some(status);
            return LineOutcome::Quit;
        }
        self.refresh_completion_names();
        outcome
    }

    /// Forget a partly typed chunk (Ctrl-C, or Ctrl-D inside a chunk, on a terminal).
    pub fn discard_pending(&mut self) {
        self.pending.clear();
        self.entry_lines.clear();
        self.hinted = false;
    }

    /// An empty line inside an unfinished chunk. After a line that cannot be part of a
    /// complete chunk (a `;` inside an unclosed `(` or `[`), the chunk is reported and
    /// dropped; otherwise it goes on, and on a terminal a hint says how to finish or cancel.
    fn blank_line_in_chunk(&mut self) {
        self.pending.push('\n');
        self.entry_lines.push(String::new());
        if semicolon_in_open_bracket(&self.pending) {
            let chunk = std::mem::take(&mut self.pending);
            let mut diag = tessera::incomplete_input_diagnostic(&chunk);
            diag.notes.push(
                "a `;` inside an unclosed `(` or `[` cannot be completed: the chunk was dropped"
                    .to_string(),
            );
            self.entries.push((self.entry_lines.join("\n"), false));
            self.entry_lines.clear();
            self.hinted = false;
            self.report(&[diag], REPL_NAME, &chunk);
            self.failed(&[]);
        } else if self.interactive && !self.hinted {
            self.hinted = true;
            self.command_note(
                "the chunk is not finished (an open bracket, block or string): finish it, or press Ctrl-C to cancel it",
            );
        }
    }

    /// End of input: a pending incomplete chunk is a syntax error (E0100).
    pub fn finish(&mut self) {
        if self.is_continuing() {
            let chunk = std::mem::take(&mut self.pending);
            let diag = tessera::incomplete_input_diagnostic(&chunk);
            self.report(std::slice::from_ref(&diag), REPL_NAME, &chunk);
            self.failed(&[diag]);
        }
        self.session.flush();
    }

    /// Keep the names in scope for completion (when a line editor completes them).
    fn refresh_completion_names(&mut self) {
        if let Some(names) = &self.completion_names {
            let current = self.session.names_in_scope();
            if let Ok(mut shared) = names.lock() {
                *shared = current;
            }
        }
    }

    fn evaluate_pending(&mut self) {
        let pending = self.pending.clone();
        let result = self.session.eval_chunk(&pending);
        if !matches!(result, ChunkResult::Incomplete) {
            self.entries.push((self.entry_lines.join("\n"), true));
            self.entry_lines.clear();
            self.hinted = false;
        }
        match result {
            ChunkResult::Incomplete => {}
            ChunkResult::Done => {
                let chunk = std::mem::take(&mut self.pending);
                self.note_definitions(&chunk, REPL_NAME, Some(self.entries.len()));
            }
            ChunkResult::Failed(diags) => {
                let chunk = std::mem::take(&mut self.pending);
                if exit_status(&diags) == 3 {
                    self.note_definitions(&chunk, REPL_NAME, Some(self.entries.len()));
                }
                self.report(&diags, REPL_NAME, &chunk);
                self.failed(&diags);
            }
        }
    }

    /// Evaluate the whole chunk `src` given as a command's argument (`:time`, `:show`); an
    /// incomplete one is an error. Returns whether it ran.
    fn evaluate_argument(&mut self, src: &str, line: &str, offset: usize) -> bool {
        let owned = src.to_string();
        match self.session.eval_chunk(&owned) {
            ChunkResult::Done => true,
            ChunkResult::Incomplete => {
                self.command_error("the chunk is incomplete: a command takes one line");
                false
            }
            ChunkResult::Failed(diags) => {
                let shifted: Vec<Diagnostic> =
                    diags.into_iter().map(|diag| diag.shifted(offset)).collect();
                self.report(&shifted, REPL_NAME, line);
                self.failed(&shifted);
                false
            }
        }
    }

    /// Print a command's answer, or its diagnostics with spans shifted by `offset` (where the
    /// command's argument starts in `line`).
    fn answer(
        &mut self,
        answer: Result<String, Vec<Diagnostic>>,
        line: &str,
        offset: usize,
    ) -> LineOutcome {
        match answer {
            Ok(text) => self.session.print_line(&text),
            Err(diags) => {
                let shifted: Vec<Diagnostic> =
                    diags.into_iter().map(|diag| diag.shifted(offset)).collect();
                self.report(&shifted, REPL_NAME, line);
            }
        }
        LineOutcome::Continue
    }

    /// An error of a command on stderr.
    fn command_error(&mut self, message: &str) {
        self.session.flush();
        let _ = writeln!(self.diagnostics, "error: {message}");
        let _ = self.diagnostics.flush();
    }

    /// A note on stderr (not an error).
    fn command_note(&mut self, message: &str) {
        self.session.flush();
        let _ = writeln!(self.diagnostics, "note: {message}");
        let _ = self.diagnostics.flush();
    }

    fn report(&mut self, diags: &[Diagnostic], file_name: &str, src: &str) {
        self.session.flush();
        // Ctrl-C is one line, as ghci's, with where the evaluation was.
        if let [diag] = diags {
            if diag.code == INTERRUPTED {
                let line = interrupted_line(diag, file_name, src);
                let _ = writeln!(self.diagnostics, "{line}");
                let _ = self.diagnostics.flush();
                return;
            }
        }
        let rendered = render_with(
            diags,
            file_name,
            src,
            &self.session.render_options(self.color),
        );
        let _ = self.diagnostics.write_all(rendered.as_bytes());
        let _ = self.diagnostics.flush();
    }
}

/// Run the REPL on stdin until `:quit`, end of input or `System::exit`; returns the exit
/// status (0 unless `System::exit` gave another: errors are reported and the session goes on).
pub fn run(session: Session, keep_going: bool) -> i32 {
    let interactive = std::io::stdin().is_terminal();
    let no_color = std::env::var_os("NO_COLOR").is_some();
    let color = interactive && std::io::stderr().is_terminal() && !no_color;
    let stdout_terminal = std::io::stdout().is_terminal();
    let mut repl = Repl::new(session, Box::new(std::io::stderr()), color)
        .with_display(stdout_terminal, stdout_terminal && !no_color)
        .keep_going(keep_going || interactive);
    repl.interactive = interactive;
    if interactive {
        run_terminal(&mut repl);
    } else {
        run_lines(&mut repl, std::io::stdin().lock());
    }
    repl.exit_status()
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
    let config = Config::builder()
        .max_history_size(HISTORY_SIZE)
        .map(|builder| builder.completion_type(CompletionType::List).build())
        .unwrap_or_default();
    let mut editor = match Editor::<ReplHelper, DefaultHistory>::with_config(config) {
        Ok(editor) => editor,
        Err(error) => {
            repl.command_error(&format!(
                "cannot start the line editor ({error}); reading plain lines"
            ));
            run_lines(repl, std::io::stdin().lock());
            return;
        }
    };
    let names = Arc::new(Mutex::new(Vec::new()));
    repl.completion_names = Some(names.clone());
    repl.refresh_completion_names();
    editor.set_helper(Some(ReplHelper { names }));
    let history = history_path();
    if let Some(path) = &history {
        let _ = editor.load_history(path);
    }
    repl.session().print_line(&format!(
        "Tessera {}: Felix with compact linear types. `:help` lists the commands, `:quit` leaves.",
        env!("CARGO_PKG_VERSION")
    ));
    repl.session().flush();
    // The lines of the chunk being typed: one history entry when the chunk is complete.
    let mut chunk_lines: Vec<String> = Vec::new();
    loop {
        let prompt = if repl.is_continuing() { ". " } else { "> " };
        match editor.readline(prompt) {
            Ok(input) => {
                // A recalled multi-line entry comes back as one string: feed it line by line.
                let mut outcome = LineOutcome::Continue;
                for line in input.split('\n') {
                    chunk_lines.push(line.to_string());
                    outcome = repl.feed_line(line);
                    if outcome == LineOutcome::Quit {
                        break;
                    }
                }
                if !repl.is_continuing() {
                    let entry = chunk_lines.join("\n");
                    chunk_lines.clear();
                    if !entry.trim().is_empty() {
                        let _ = editor.add_history_entry(entry);
                        if let Some(path) = &history {
                            let _ = editor.append_history(path);
                        }
                    }
                }
                if outcome == LineOutcome::Quit {
                    break;
                }
            }
            Err(ReadlineError::Interrupted) => {
                chunk_lines.clear();
                repl.discard_pending();
            }
            // Ctrl-D: inside an unfinished chunk it discards the chunk; at an empty prompt
            // it leaves.
            Err(ReadlineError::Eof) if repl.is_continuing() => {
                chunk_lines.clear();
                repl.discard_pending();
            }
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
}

/// The code of the runtime error of Ctrl-C.
const INTERRUPTED: &str = "R0012";

/// `Interrupted.` and where: the function that was running and the line of the chunk.
fn interrupted_line(diag: &Diagnostic, file_name: &str, src: &str) -> String {
    let mut places = Vec::new();
    if let Some(frame) = diag.frames.first() {
        places.push(format!("in `{}`", frame.function));
    }
    let at = match diag.frames.last() {
        Some(frame) if frame.call_origin == tessera::Origin::Here => frame.call.start,
        Some(_) => usize::MAX,
        None if diag.origin == tessera::Origin::Here => diag.span.start,
        None => usize::MAX,
    };
    if at <= src.len() {
        let before = &src[..at];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        places.push(format!("at {file_name}:{line}:{column}"));
    }
    if places.is_empty() {
        "Interrupted.".to_string()
    } else {
        format!("Interrupted. ({})", places.join(", "))
    }
}

/// Does the last line of `chunk` end with a `;` while a `(` or `[` is still open (a chunk no
/// later line can complete)? Brackets in strings, chars and comments are skipped.
pub fn semicolon_in_open_bracket(chunk: &str) -> bool {
    let mut open: Vec<char> = Vec::new();
    let mut last_significant = ' ';
    let mut chars = chunk.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' | '\'' => {
                while let Some(inner) = chars.next() {
                    if inner == '\\' {
                        chars.next();
                    } else if inner == c || inner == '\n' {
                        break;
                    }
                }
            }
            '/' if chars.peek() == Some(&'/') => {
                for inner in chars.by_ref() {
                    if inner == '\n' {
                        break;
                    }
                }
            }
            '(' | '[' | '{' => open.push(c),
            ')' | ']' | '}' => {
                open.pop();
            }
            _ => {}
        }
        if !c.is_whitespace() {
            last_significant = c;
        }
    }
    last_significant == ';' && matches!(open.last(), Some('(' | '['))
}

/// The history file: `TESSERA_HISTORY` when set (empty: no history), else
/// `~/.tessera_history`.
fn history_path() -> Option<PathBuf> {
    match std::env::var_os("TESSERA_HISTORY") {
        Some(path) if path.is_empty() => None,
        Some(path) => Some(PathBuf::from(path)),
        None => std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".tessera_history")),
    }
}

#[cfg(test)]
mod tests;
