//! The `:` commands: their table, how a written name chooses one, and their answers.

use std::time::Instant;

use tessera::{primitive_entries, Display, NameKind, ScopeName, Section};

use super::complete::section_of;
use super::{LineOutcome, Repl};

/// What a command's argument is (for completion and for the "needs" errors).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Argument {
    None,
    /// A name, a file, a number or a command that may be left out.
    Optional,
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
        "the types, description and an example of a library primitive or operator; the doc comment (`///` or `//!` lines) of your definition",
        Argument::Name,
    ),
    command(
        "info",
        &["i"],
        ":info NAME",
        "where a name is defined, its type or definition and its documentation",
        Argument::Name,
    ),
    command(
        "browse",
        &[],
        ":browse [PATTERN]",
        "the names in scope with their types: yours first, then the library's (only names containing PATTERN)",
        Argument::Optional,
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
        &["ti"],
        ":time EXPR",
        "evaluate (any chunk) and print the wall time it took",
        Argument::Expr,
    ),
    command(
        "timeit",
        &[],
        ":timeit EXPR",
        "evaluate repeatedly (about a second in all) and print the mean time ± the deviation and the runs",
        Argument::Expr,
    ),
    command(
        "plot",
        &[],
        ":plot EXPR",
        "draw an array of numbers: one dimension as a line chart, two as a heatmap",
        Argument::Expr,
    ),
    command(
        "hist",
        &[],
        ":hist EXPR",
        "draw a histogram of an array of numbers",
        Argument::Expr,
    ),
    command(
        "jit",
        &[],
        ":jit",
        "what native code was made of each function and unit run so far: native or closures, with the pieces left to closures, and the time compiling took",
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
        "edit",
        &["e"],
        ":edit [FILE]",
        "edit FILE (else the last file loaded) with $EDITOR, then load it",
        Argument::Optional,
    ),
    command(
        "save",
        &[],
        ":save FILE",
        "write the chunks that ran without error, in order, as a script",
        Argument::File,
    ),
    command(
        "history",
        &[],
        ":history [N]",
        "the last N chunks and commands entered (all of them without N)",
        Argument::Optional,
    ),
    command(
        "cd",
        &[],
        ":cd DIR",
        "change the current folder (of :load, :save and the program's files)",
        Argument::File,
    ),
    command(
        "!",
        &[],
        ":!COMMAND",
        "run a shell command",
        Argument::Expr,
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
        "threads N (parallel loops), print-limit N (array elements shown, 0: all), precision N \
         (digits of doubles the REPL shows, 0: as `str`), args A B … (the program's arguments, \
         System::argv); alone: the settings",
        Argument::Setting,
    ),
    command(
        "help",
        &["h", "?"],
        ":help [COMMAND]",
        "this list, or what one command does",
        Argument::Optional,
    ),
    command(
        "quit",
        &["q"],
        ":quit",
        "leave the REPL (Ctrl-D at an empty prompt does the same)",
        Argument::None,
    ),
];

/// The settings `:set` knows.
pub(super) const SETTINGS: [&str; 4] = ["threads", "print-limit", "precision", "args"];

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

impl Repl {
    pub(super) fn run_command(&mut self, line: &str) -> LineOutcome {
        let command_start = line.len() - line.trim_start().len();
        // `:!COMMAND`: the rest of the line is the shell's.
        if let Some(shell) = line[command_start..].strip_prefix(":!") {
            self.shell(shell);
            return LineOutcome::Continue;
        }
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
            && !matches!(
                info.argument,
                Argument::None | Argument::Setting | Argument::Optional
            )
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
            "type" => match self.session.type_of(argument) {
                Ok(text) => Ok(text),
                // A struct, variant or typedef named alone: its definition.
                Err(diags) => match self.type_definition(argument.trim()) {
                    Some(text) => Ok(text),
                    None => Err(diags),
                },
            },
            "info" => {
                self.info(argument.trim());
                return LineOutcome::Continue;
            }
            "timeit" => {
                self.timeit(argument, line, name_end);
                return LineOutcome::Continue;
            }
            "plot" | "hist" => {
                self.picture(name, argument, line, name_end);
                return LineOutcome::Continue;
            }
            "edit" => {
                self.edit(argument.trim());
                return LineOutcome::Continue;
            }
            "save" => {
                self.save(argument.trim());
                return LineOutcome::Continue;
            }
            "history" => {
                self.history(argument.trim());
                return LineOutcome::Continue;
            }
            "cd" => {
                self.change_folder(argument.trim());
                return LineOutcome::Continue;
            }
            "!" => {
                self.shell(argument);
                return LineOutcome::Continue;
            }
            "doc" => match self
                .session
                .doc_of(argument)
                .or_else(|| self.user_doc(argument.trim()))
            {
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
                self.browse(argument.trim());
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
                let lines = self.session.jit_report();
                for line in lines.iter().chain(&self.session.jit_time_line()) {
                    self.session.print_line(line);
                }
                return LineOutcome::Continue;
            }
            "set" => {
                self.set(argument.trim());
                return LineOutcome::Continue;
            }
            "help" => {
                self.print_help(argument.trim());
                return LineOutcome::Continue;
            }
            "quit" => return LineOutcome::Quit,
            _ => unreachable!("every command in COMMANDS is answered"),
        };
        self.answer(answer, line, name_end)
    }

    /// Run a file in the session; returns whether it could be read (a file with errors is
    /// still `:reload`ed, so fixing it and reloading works).
    pub(super) fn load_file(&mut self, path: &str) -> bool {
        match std::fs::read_to_string(path) {
            Ok(src) => {
                let result = self.session.run_file_source(&src, path);
                // As for a chunk: a static error defines nothing, a runtime error keeps what
                // ran before it.
                let ran = match &result {
                    Ok(()) => true,
                    Err(diags) => tessera::exit_status(diags) == 3,
                };
                if ran {
                    self.note_definitions(&src, path, None);
                }
                if let Err(diags) = result {
                    self.report(&diags, path, &src);
                    self.failed(&diags);
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
            let precision = self.session.display().precision.unwrap_or(0);
            self.session.print_line(&format!("precision {precision}"));
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
            ("precision", Some(digits)) if digits <= 17 => {
                let display = Display {
                    precision: (digits > 0).then_some(digits),
                    ..self.session.display()
                };
                self.session.set_display(display);
            }
            ("precision", _) => self.command_error(
                "`:set precision` needs a whole number from 0 to 17 (0: doubles as `str` prints them)",
            ),
            ("print-limit", None) => self
                .command_error("`:set print-limit` needs a whole number (0: print every element)"),
            (other, _) => self.command_error(&format!(
                "unknown setting `{other}`: `:set` knows {}",
                SETTINGS.join(", ")
            )),
        }
    }

    /// `:browse`: the user's names with their types, then the library's, grouped.
    fn browse(&mut self, pattern: &str) {
        let names: Vec<ScopeName> = self
            .session
            .names_in_scope()
            .into_iter()
            .filter(|n| n.name.contains(pattern))
            .collect();
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
            let entries: Vec<_> = primitive_entries()
                .into_iter()
                .filter(|entry| section_of(entry) == Some(section))
                .filter(|entry| entry.names.iter().any(|name| name.contains(pattern)))
                .collect();
            if !entries.is_empty() || pattern.is_empty() {
                lines.push(heading.to_string());
            }
            for entry in &entries {
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

    fn print_help(&mut self, command: &str) {
        if !command.is_empty() {
            match resolve_command(command.trim_start_matches(':')) {
                Ok(info) => {
                    let text = format!("{}\n{}", info.usage, info.meaning);
                    self.session.print_line(&text);
                }
                Err(_) => self.command_error(&format!(
                    "no command `{command}` (`:help` lists the commands)"
                )),
            }
            return;
        }
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
}
