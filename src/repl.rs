//! The REPL: reads lines into chunks, evaluates them in one `Session`, answers the
//! `:` commands. This is the only module that imports rustyline.
//!
//! On a terminal it shows a banner and the prompts `> ` and `. `, appends every chunk to a
//! history file (`TESSERA_HISTORY`, else `~/.tessera_history`; a multi-line chunk is one
//! entry) and completes commands, keywords, names in scope, type names and file names. When
//! stdin is not a terminal it prints no banner, no prompts and no echo: stdout carries only
//! program output and results.
//!
//! Display (see `tessera::Display`): the print limit applies to every REPL result, piped or
//! not (so a transcript shows what a person sees, and a huge array never floods a pipe);
//! matrices print as grids only when stdout is a terminal (or with `:show`); colours only on
//! a terminal without `NO_COLOR`.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rustyline::completion::Completer;
use rustyline::config::{CompletionType, Config};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::DefaultHistory;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};

use tessera::{
    is_blank_source, primitive_entries, render_with, ChunkResult, Diagnostic, Display, DocEntry,
    DocOrigin, NameKind, ScopeName, Section, Session,
};

/// The file name diagnostics of REPL chunks and commands are rendered under.
pub const REPL_NAME: &str = "<repl>";

/// The most entries the history file keeps (older ones are dropped).
pub const HISTORY_SIZE: usize = 1000;

/// What a command's argument is (for completion and for the "needs" errors).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Argument {
    None,
    Expr,
    Type,
    Name,
    File,
    Setting,
}

/// One REPL command.
pub struct CommandInfo {
    pub name: &'static str,
    /// Abbreviations that choose this command although other commands share the prefix
    /// (ghci's `:t`, `:k`, `:l`, `:q`, `:r`).
    pub abbreviations: &'static [&'static str],
    pub usage: &'static str,
    pub meaning: &'static str,
    pub argument: Argument,
}

const fn command(
    name: &'static str,
    abbreviations: &'static [&'static str],
    usage: &'static str,
    meaning: &'static str,
    argument: Argument,
) -> CommandInfo {
    CommandInfo {
        name,
        abbreviations,
        usage,
        meaning,
        argument,
    }
}

/// The REPL commands, in the order `:help` lists them. Any unique prefix names a command.
pub const COMMANDS: &[CommandInfo] = &[
    command(
        "type",
        &["t"],
        ":type [-n|-v] EXPR",
        "the type of an expression (-n: the normal form; -v: and the type functor that derived it)",
        Argument::Expr,
    ),
    command(
        "kind",
        &["k"],
        ":kind TYPE",
        "the most specific kind: UNITSUM, COMPACTLINEAR or TYPE",
        Argument::Type,
    ),
    command(
        "doc",
        &[],
        ":doc NAME",
        "the types, description and an example of a library primitive or operator",
        Argument::Name,
    ),
    command(
        "browse",
        &[],
        ":browse",
        "the names in scope with their types: yours first, then the library's",
        Argument::None,
    ),
    command(
        "show",
        &[],
        ":show EXPR",
        "evaluate and print as a grid with row and column indices (a matrix of scalars)",
        Argument::Expr,
    ),
    command(
        "time",
        &[],
        ":time EXPR",
        "evaluate (any chunk) and print the wall time it took",
        Argument::Expr,
    ),
    command(
        "jit",
        &[],
        ":jit",
        "what native code was made of each function and unit run so far: native or closures, with the pieces left to closures",
        Argument::None,
    ),
    command(
        "size",
        &[],
        ":size TYPE",
        "the number of values of a compact linear type",
        Argument::Type,
    ),
    command(
        "layout",
        &[],
        ":layout TYPE",
        "the mixed-radix layout of a compact type (or an array's index)",
        Argument::Type,
    ),
    command(
        "iso",
        &[],
        ":iso A, B",
        "whether a reshape A :>> B is layout-identical, and why not",
        Argument::Type,
    ),
    command(
        "load",
        &["l"],
        ":load FILE",
        "run a file in this session (path relative to the current folder)",
        Argument::File,
    ),
    command(
        "reload",
        &["r"],
        ":reload",
        "a fresh session that runs the files `:load`ed so far again",
        Argument::None,
    ),
    command(
        "reset",
        &[],
        ":reset",
        "forget all definitions",
        Argument::None,
    ),
    command(
        "set",
        &[],
        ":set OPTION N",
        "threads N (parallel loops), print-limit N (array elements shown, 0: all), args A B … \
         (the program's arguments, System::argv); alone: the settings",
        Argument::Setting,
    ),
    command("help", &["h", "?"], ":help", "this list", Argument::None),
    command(
        "quit",
        &["q"],
        ":quit",
        "leave the REPL (Ctrl-D at an empty prompt does the same)",
        Argument::None,
    ),
];

/// The settings `:set` knows.
const SETTINGS: [&str; 3] = ["threads", "print-limit", "args"];

/// The keywords the terminal REPL completes (the language's keywords), besides the names in scope.
const KEYWORDS: &[&str] = &[
    "begin", "end", "do", "done", "if", "then", "elif", "else", "endif", "match", "with",
    "endmatch", "for", "in", "while", "until", "upto", "downto", "break", "continue", "return",
    "var", "val", "fun", "proc", "gen", "typedef", "struct", "variant", "case", "of", "proj",
    "aproj", "ident", "caseno", "and", "or", "not", "true", "false", "type", "new",
];

/// The built-in type names (completed where a type is expected).
pub use tessera::BUILTIN_TYPES;

/// Which command `name` (without the colon) names: an exact name, a declared abbreviation,
/// or a unique prefix. An ambiguous prefix gives the candidates.
pub fn resolve_command(name: &str) -> Result<&'static CommandInfo, Vec<&'static str>> {
    if let Some(info) = COMMANDS
        .iter()
        .find(|info| info.name == name || info.abbreviations.contains(&name))
    {
        return Ok(info);
    }
    let candidates: Vec<&'static CommandInfo> = if name.is_empty() {
        Vec::new()
    } else {
        COMMANDS
            .iter()
            .filter(|info| info.name.starts_with(name))
            .collect()
    };
    match candidates.as_slice() {
        [only] => Ok(only),
        _ => Err(candidates.iter().map(|info| info.name).collect()),
    }
}

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

    /// The exit status of the session: the one `System::exit` asked for, or 0.
    pub fn exit_status(&self) -> i32 {
        self.exit_status.unwrap_or(0)
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
    }

    /// End of input: a pending incomplete chunk is a syntax error (E0100).
    pub fn finish(&mut self) {
        if self.is_continuing() {
            let chunk = std::mem::take(&mut self.pending);
            let diag = tessera::incomplete_input_diagnostic(&chunk);
            self.report(&[diag], REPL_NAME, &chunk);
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
        match self.session.eval_chunk(&pending) {
            ChunkResult::Incomplete => {}
            ChunkResult::Done => self.pending.clear(),
            ChunkResult::Failed(diags) => {
                let chunk = std::mem::take(&mut self.pending);
                self.report(&diags, REPL_NAME, &chunk);
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
                false
            }
        }
    }

    fn run_command(&mut self, line: &str) -> LineOutcome {
        let command_start = line.len() - line.trim_start().len();
        let name_end = line[command_start..]
            .find(char::is_whitespace)
            .map_or(line.len(), |length| command_start + length);
        let written = &line[command_start + 1..name_end];
        let argument = &line[name_end..];
        let info = match resolve_command(written) {
            Ok(info) => info,
            Err(candidates) if candidates.is_empty() => {
                self.command_error(&format!(
                    "unknown command `:{written}` (`:help` lists the commands)"
                ));
                return LineOutcome::Continue;
            }
            Err(candidates) => {
                let listed: Vec<String> = candidates.iter().map(|c| format!(":{c}")).collect();
                self.command_error(&format!(
                    "ambiguous command `:{written}`: {}",
                    listed.join(", ")
                ));
                return LineOutcome::Continue;
            }
        };
        let name = info.name;
        if argument.trim().is_empty()
            && !matches!(info.argument, Argument::None | Argument::Setting)
        {
            let what = match info.argument {
                Argument::Expr => "an expression",
                Argument::Name => "a name",
                Argument::File => "a file name",
                _ if name == "iso" => "two types `A, B`",
                _ => "a type",
            };
            self.command_error(&format!("`:{name}` needs {what}"));
            return LineOutcome::Continue;
        }
        if info.argument == Argument::None && !argument.trim().is_empty() {
            self.command_error(&format!("`:{name}` takes no argument"));
            return LineOutcome::Continue;
        }
        let answer = match name {
            // `:type -n e`: the normal form, typedefs expanded.
            "type" if matches!(argument.trim(), "-n" | "-v") => {
                let flag = argument.trim();
                self.command_error(&format!("`:type {flag}` needs an expression"));
                return LineOutcome::Continue;
            }
            "type"
                if argument.trim_start().starts_with("-n ")
                    || argument.trim_start().starts_with("-v ") =>
            {
                let flag_at = argument.find('-').unwrap_or(0);
                let flag_end = flag_at + 2;
                let rest = &argument[flag_end..];
                let answer = if argument[flag_at..].starts_with("-n") {
                    self.session.normal_type_of(rest)
                } else {
                    self.session.explained_type_of(rest)
                };
                return self.answer(answer, line, name_end + flag_end);
            }
            "type" => self.session.type_of(argument),
            "doc" => match self.session.doc_of(argument) {
                Some(text) => Ok(text),
                None => match resolve_command(argument.trim().trim_start_matches(':')) {
                    Ok(info) if argument.trim().starts_with(':') => {
                        Ok(format!("{}\n{}", info.usage, info.meaning))
                    }
                    _ => {
                        self.command_error(&format!(
                            "no documentation for `{}`: `:doc` knows the library primitives, operators and commands",
                            argument.trim()
                        ));
                        return LineOutcome::Continue;
                    }
                },
            },
            "kind" => self.session.kind_of(argument),
            "size" => self.session.size_of(argument),
            "layout" => self.session.layout_of(argument),
            "iso" => self.session.iso_of(argument),
            "load" => {
                let path = argument.trim().to_string();
                if self.load_file(&path) && !self.loaded.contains(&path) {
                    self.loaded.push(path);
                }
                return LineOutcome::Continue;
            }
            "reload" => {
                self.reload();
                return LineOutcome::Continue;
            }
            "reset" => {
                self.session.reset();
                return LineOutcome::Continue;
            }
            "browse" => {
                self.browse();
                return LineOutcome::Continue;
            }
            "show" => {
                let saved = self.session.display();
                self.session.set_display(Display {
                    grid: true,
                    indices: true,
                    ..saved
                });
                self.evaluate_argument(argument, line, name_end);
                self.session.set_display(saved);
                return LineOutcome::Continue;
            }
            "time" => {
                let started = Instant::now();
                if self.evaluate_argument(argument, line, name_end) {
                    let seconds = started.elapsed().as_secs_f64();
                    self.session.print_line(&format!("time: {seconds:.6} s"));
                }
                return LineOutcome::Continue;
            }
            "jit" => {
                for line in self.session.jit_report() {
                    self.session.print_line(&line);
                }
                return LineOutcome::Continue;
            }
            "set" => {
                self.set(argument.trim());
                return LineOutcome::Continue;
            }
            "help" => {
                self.print_help();
                return LineOutcome::Continue;
            }
            "quit" => return LineOutcome::Quit,
            _ => unreachable!("every command in COMMANDS is answered"),
        };
        self.answer(answer, line, name_end)
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

    /// Run a file in the session; returns whether it could be read (a file with errors is
    /// still `:reload`ed, so fixing it and reloading works).
    fn load_file(&mut self, path: &str) -> bool {
        match std::fs::read_to_string(path) {
            Ok(src) => {
                if let Err(diags) = self.session.run_file_source(&src, path) {
                    self.report(&diags, path, &src);
                }
                true
            }
            Err(error) => {
                self.command_error(&format!("cannot read `{path}`: {error}"));
                false
            }
        }
    }

    fn reload(&mut self) {
        if self.loaded.is_empty() {
            self.command_error("`:reload` runs the files `:load`ed before, and there are none");
            return;
        }
        self.session.reset();
        for path in self.loaded.clone() {
            self.load_file(&path);
        }
    }

    /// `:set`, `:set threads N`, `:set print-limit N`, `:set args A B …`.
    fn set(&mut self, argument: &str) {
        let mut words = argument.split_whitespace();
        if argument.split_whitespace().next() == Some("args") {
            let args = words.skip(1).map(str::to_string).collect();
            self.session.set_args(args);
            return;
        }
        let (setting, value) = (words.next(), words.next());
        if words.next().is_some() {
            self.command_error("`:set` takes one setting and one number");
            return;
        }
        let Some(setting) = setting else {
            let threads = self.session.threads();
            let limit = self.session.display().print_limit.unwrap_or(0);
            self.session.print_line(&format!("threads {threads}"));
            self.session.print_line(&format!("print-limit {limit}"));
            let args = self.session.args();
            let args = args.get(1..).unwrap_or_default().join(" ");
            self.session.print_line(format!("args {args}").trim_end());
            return;
        };
        let number = value.and_then(|value| value.parse::<usize>().ok());
        match (setting, number) {
            ("threads", Some(count)) if count >= 1 && count <= tessera::limits::max_threads() => {
                if let Err(error) = self.session.set_threads(count) {
                    self.command_error(&format!("cannot start {count} threads: {error}"))
                }
            }
            ("threads", _) => self.command_error(&format!(
                "`:set threads` needs a whole number from 1 to {}",
                tessera::limits::max_threads()
            )),
            ("print-limit", Some(limit)) => {
                let display = Display {
                    print_limit: (limit > 0).then_some(limit),
                    ..self.session.display()
                };
                self.session.set_display(display);
            }
            ("print-limit", None) => self
                .command_error("`:set print-limit` needs a whole number (0: print every element)"),
            (other, _) => self.command_error(&format!(
                "unknown setting `{other}`: `:set` knows {}",
                SETTINGS.join(", ")
            )),
        }
    }

    /// `:browse`: the user's names with their types, then the library's, grouped.
    fn browse(&mut self) {
        let names = self.session.names_in_scope();
        let mut lines = vec!["// your definitions".to_string()];
        let user: Vec<&ScopeName> = names.iter().filter(|n| !n.library).collect();
        if user.is_empty() {
            lines.push("// (none yet)".to_string());
        }
        for name in user {
            lines.push(self.describe_name(name));
        }
        lines.push("// library: written in Tessera (the prelude)".to_string());
        for name in names.iter().filter(|n| n.library) {
            lines.push(self.describe_name(name));
        }
        for (section, heading) in [
            (Section::Function, "// library: functions"),
            (Section::Conversion, "// library: conversions"),
            (Section::Operator, "// library: operators"),
        ] {
            lines.push(heading.to_string());
            for entry in primitive_entries()
                .iter()
                .filter(|entry| section_of(entry) == Some(section))
            {
                let name = &entry.names[0];
                let schemes: Vec<&str> = entry
                    .signatures
                    .iter()
                    .map(|s| s.strip_prefix(&format!("{name} : ")).unwrap_or(s))
                    .collect();
                lines.push(format!("{name} : {}", schemes.join("  |  ")));
            }
        }
        for line in lines {
            self.session.print_line(&line);
        }
    }

    /// One `:browse` line: `name : TYPE` for a value, `type name = TYPE` for a type.
    fn describe_name(&mut self, name: &ScopeName) -> String {
        match name.kind {
            NameKind::Value => match self.session.type_of(&name.name) {
                Ok(ty) => format!("{} : {ty}", name.name),
                Err(_) => format!("{} : (overloaded)", name.name),
            },
            NameKind::Type => match self.session.kind_of(&name.name) {
                Ok(kind) => match self.session.normal_type_of_type(&name.name) {
                    Some(ty) if ty != name.name => format!("type {} = {ty}  // {kind}", name.name),
                    _ => format!("type {}  // {kind}", name.name),
                },
                Err(_) => format!("type {}", name.name),
            },
        }
    }

    fn print_help(&mut self) {
        self.session.print_line(
            "Commands (at the start of a chunk; any unique prefix works, as :t :k :l :r :q):",
        );
        for info in COMMANDS {
            self.session
                .print_line(&format!("  {:<20}{}", info.usage, info.meaning));
        }
        self.session.print_line(
            "Anything else is Tessera: an expression prints VALUE : TYPE and names it `it`, statements run as in a script.",
        );
    }

    fn command_error(&mut self, message: &str) {
        self.session.flush();
        let _ = writeln!(self.diagnostics, "error: {message}");
        let _ = self.diagnostics.flush();
    }

    fn report(&mut self, diags: &[Diagnostic], file_name: &str, src: &str) {
        self.session.flush();
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
pub fn run(session: Session) -> i32 {
    let interactive = std::io::stdin().is_terminal();
    let no_color = std::env::var_os("NO_COLOR").is_some();
    let color = interactive && std::io::stderr().is_terminal() && !no_color;
    let stdout_terminal = std::io::stdout().is_terminal();
    let mut repl = Repl::new(session, Box::new(std::io::stderr()), color)
        .with_display(stdout_terminal, stdout_terminal && !no_color);
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

/// The history file: `TESSERA_HISTORY` when set (empty: no history), else
/// `~/.tessera_history`.
fn history_path() -> Option<PathBuf> {
    match std::env::var_os("TESSERA_HISTORY") {
        Some(path) if path.is_empty() => None,
        Some(path) => Some(PathBuf::from(path)),
        None => std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".tessera_history")),
    }
}

/// The candidates for completing the word that ends at `position` in `line`, given the
/// names in scope: command names for `:` at the start of a line; after a command, what its
/// argument is (file names after `:load`, type names after `:kind`, settings after `:set`,
/// names after `:type`); type names after a `:` annotation or `^`; names in scope and
/// keywords otherwise. Returns where the completed word starts; candidates are sorted.
pub fn completion_candidates(
    line: &str,
    position: usize,
    names: &[ScopeName],
) -> (usize, Vec<String>) {
    let before = &line[..position.min(line.len())];
    let trimmed = before.trim_start();
    // After a command name: complete its argument.
    if trimmed.starts_with(':') {
        if let Some(space) = trimmed.find(char::is_whitespace) {
            let command_name = &trimmed[1..space];
            let argument_kind =
                resolve_command(command_name).map_or(Argument::None, |c| c.argument);
            if argument_kind == Argument::File {
                let word_start = before
                    .rfind(char::is_whitespace)
                    .map_or(0, |index| index + 1);
                return (word_start, file_candidates(&before[word_start..]));
            }
            let (word_start, word) = word_before(before);
            let candidates: Vec<String> = match argument_kind {
                Argument::Type => type_names(names),
                Argument::Setting if before[..word_start].trim() == trimmed[..space].trim() => {
                    SETTINGS.iter().map(|s| s.to_string()).collect()
                }
                Argument::Expr | Argument::Name => value_names(names),
                _ => Vec::new(),
            };
            return (word_start, matching(candidates, word));
        }
        let start = before.len() - trimmed.len();
        let word = trimmed;
        let commands = COMMANDS
            .iter()
            .map(|info| format!(":{}", info.name))
            .filter(|command| command.starts_with(word))
            .collect();
        return (start, commands);
    }
    let (word_start, word) = word_before(before);
    if word.is_empty() {
        return (word_start, Vec::new());
    }
    let previous = before[..word_start].trim_end().chars().last();
    let candidates = if matches!(previous, Some(':' | '^')) {
        type_names(names)
    } else {
        value_names(names)
    };
    (word_start, matching(candidates, word))
}

/// The identifier ending at the end of `before` (letters, digits, `_`) and where it starts.
fn word_before(before: &str) -> (usize, &str) {
    let start = before
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |index| {
            index + before[index..].chars().next().map_or(1, char::len_utf8)
        });
    (start, &before[start..])
}

/// The candidates that start with `word`, sorted, each once.
fn matching(mut candidates: Vec<String>, word: &str) -> Vec<String> {
    candidates.retain(|candidate| candidate.starts_with(word));
    candidates.sort();
    candidates.dedup();
    candidates
}

/// Value names: the names in scope, the library primitives written as identifiers, and the
/// keywords.
fn value_names(names: &[ScopeName]) -> Vec<String> {
    let mut all: Vec<String> = names
        .iter()
        .filter(|n| n.kind == NameKind::Value)
        .map(|n| n.name.clone())
        .collect();
    all.extend(
        primitive_entries()
            .into_iter()
            .filter(|entry| section_of(entry) != Some(Section::Internal))
            .map(|entry| entry.names[0].clone())
            .filter(|name| is_identifier(name)),
    );
    all.extend(KEYWORDS.iter().map(|k| k.to_string()));
    all
}

/// Type names: the types in scope and the built-in ones.
fn type_names(names: &[ScopeName]) -> Vec<String> {
    let mut all: Vec<String> = names
        .iter()
        .filter(|n| n.kind == NameKind::Type)
        .map(|n| n.name.clone())
        .collect();
    all.extend(BUILTIN_TYPES.iter().map(|t| t.to_string()));
    all
}

/// The section of the primitive table an entry of the library is in (`None` for `stdlib/`).
fn section_of(entry: &DocEntry) -> Option<Section> {
    match entry.origin {
        DocOrigin::Primitive { section, .. } => Some(section),
        DocOrigin::Stdlib { .. } => None,
    }
}

fn is_identifier(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// The paths that complete `word` (a path prefix): entries of its folder whose names start
/// with its last component, folders with a `/` after them. Hidden entries only when asked
/// for with a leading `.`.
fn file_candidates(word: &str) -> Vec<String> {
    let (folder, prefix) = match word.rfind('/') {
        Some(slash) => (&word[..=slash], &word[slash + 1..]),
        None => ("", word),
    };
    let listed = if folder.is_empty() { "." } else { folder };
    let Ok(entries) = std::fs::read_dir(listed) else {
        return Vec::new();
    };
    let mut candidates: Vec<String> = entries
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let name = entry.file_name().into_string().ok()?;
            if !name.starts_with(prefix) || (name.starts_with('.') && !prefix.starts_with('.')) {
                return None;
            }
            let is_folder = entry.file_type().ok()?.is_dir();
            Some(format!(
                "{folder}{name}{}",
                if is_folder { "/" } else { "" }
            ))
        })
        .collect();
    candidates.sort();
    candidates
}

/// The rustyline helper: completion only (no hints, highlighting or validation; the parser
/// decides when a chunk is complete). It reads the names in scope the REPL keeps current.
struct ReplHelper {
    names: Arc<Mutex<Vec<ScopeName>>>,
}

impl Completer for ReplHelper {
    type Candidate = String;

    fn complete(
        &self,
        line: &str,
        position: usize,
        _context: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        let names = self.names.lock().map(|n| n.clone()).unwrap_or_default();
        Ok(completion_candidates(line, position, &names))
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

    fn names() -> Vec<ScopeName> {
        let value = |name: &str, library| ScopeName {
            name: name.to_string(),
            kind: NameKind::Value,
            library,
        };
        vec![
            value("total_count", false),
            value("totals", false),
            ScopeName {
                name: "grid".to_string(),
                kind: NameKind::Type,
                library: false,
            },
            value("fold_right", true),
        ]
    }

    fn check_completion(line: &str, expected_start: usize, expected: &[&str]) {
        let (start, candidates) = completion_candidates(line, line.len(), &names());
        assert_eq!(start, expected_start, "start for {line:?}");
        assert_eq!(candidates, expected, "candidates for {line:?}");
    }

    #[test]
    fn completes_commands_at_the_start_of_a_line() {
        check_completion(":ty", 0, &[":type"]);
        check_completion("  :l", 2, &[":layout", ":load"]);
        let all: Vec<String> = COMMANDS.iter().map(|c| format!(":{}", c.name)).collect();
        let (_, candidates) = completion_candidates(":", 1, &names());
        assert_eq!(candidates, all);
    }

    #[test]
    fn completes_keywords_library_and_user_names_inside_code() {
        check_completion("var x = tr", 8, &["transpose", "true", "trunc"]);
        check_completion("endm", 0, &["endmatch"]);
        check_completion("x + tot", 4, &["total_count", "totals"]);
        check_completion("fold_r", 0, &["fold_right"]);
        check_completion("x + ", 4, &[]);
    }

    #[test]
    fn completes_type_names_after_a_colon_a_caret_and_type_commands() {
        check_completion("var g : gr", 8, &["grid"]);
        check_completion("var a : int ^ 3 ^ gr", 18, &["grid"]);
        check_completion(":kind doub", 6, &["double"]);
        check_completion(":t tot", 3, &["total_count", "totals"]);
        check_completion(":set pr", 5, &["print-limit"]);
    }

    #[test]
    fn completes_file_names_after_load() {
        let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/repl/squ");
        let line = format!(":load {folder}");
        let (start, candidates) = completion_candidates(&line, line.len(), &[]);
        assert_eq!(start, 6);
        assert_eq!(
            candidates,
            [concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/examples/repl/square.flx"
            )]
        );
    }

    #[test]
    fn command_prefixes_resolve_or_list_the_candidates() {
        let name = |written: &str| resolve_command(written).map(|c| c.name);
        assert_eq!(name("t"), Ok("type"));
        assert_eq!(name("k"), Ok("kind"));
        assert_eq!(name("l"), Ok("load"));
        assert_eq!(name("la"), Ok("layout"));
        assert_eq!(name("q"), Ok("quit"));
        assert_eq!(name("r"), Ok("reload"));
        assert_eq!(name("ti"), Ok("time"));
        assert_eq!(name("b"), Ok("browse"));
        assert_eq!(name("re"), Err(vec!["reload", "reset"]));
        assert_eq!(name("s"), Err(vec!["show", "size", "set"]));
        assert_eq!(name("x"), Err(vec![]));
    }

    #[test]
    fn builtin_type_names_are_the_checker_s() {
        for name in BUILTIN_TYPES {
            assert!(
                tessera::is_builtin_type(name),
                "{name} is not a built-in type"
            );
        }
    }
}

#[cfg(test)]
#[path = "repl_tests.rs"]
mod session_tests;
