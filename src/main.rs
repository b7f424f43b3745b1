//! The `tessera` command line: its commands and exit statuses.
//!
//! `tessera FILE.flx` or `tessera run FILE.flx` checks and runs a file, `tessera check FILE.flx`
//! only checks it, `tessera` alone starts the REPL. Exit statuses: 0 success, 1 static error
//! (nothing ran), 2 usage error, 3 runtime error (the output before it stays on stdout).

use std::io::{BufWriter, IsTerminal};
use std::process::ExitCode;

mod docs;
mod repl;

use tessera::limits::Limits;
use tessera::{exit_status, render_with, RenderOptions, Session, Settings};

const USAGE: &str = "\
Tessera: an interpreter for a Felix subset built on compact linear types.

Usage:
  tessera [OPTIONS]                 start the REPL
  tessera [OPTIONS] FILE.flx [ARGS…]      check and run a program with arguments
  tessera [OPTIONS] run FILE.flx [ARGS…]  check and run a program with arguments
  tessera [OPTIONS] check FILE.flx        only check a program (nothing runs)
  tessera lsp                       serve the Language Server Protocol on stdin and stdout
                                    (for editors: diagnostics, hover, definitions, completion)
  tessera doc [FILE]                write the library reference (markdown) to FILE, or print it
  tessera --explain CODE            print the page of the error index for CODE (E0401, R0003, …)

Options:
  --threads N    use N worker threads for parallel loops (default: one per core; at most
                 four per core)
  --max-nesting N        nesting depth of expressions, types, patterns, blocks (256; E0102)
  --max-alloc N          bytes of one array, string or natural (4294967296; R0007)
  --max-natural-bits N   bits of one natural number (4194304; R0007)
  --max-memory N         bytes of heap the process may hold (half the memory; R0007)
  --max-call-depth N     nested calls (100000; R0008)
  --max-stack N          bytes of native stack for nested calls (536870912; R0008)
  --max-errors N         diagnostics printed for one file or chunk, then a count (20)
  --max-line-width N     characters of a source line echoed under a diagnostic (160)
  --max-type-width N     characters of a printed type before the rest is elided (2000)
  --validate     check the typed IR of every unit against the primitive table before it
                 runs (always on in debug builds); a violation is an internal error
  --no-inline    call every function instead of inlining calls of known functions (the
                 results are the same; for comparing speed and checking the inliner)
  --no-jit       run everything on the closure compiler instead of native code (the
                 results are the same; for comparing speed and checking the backend)
  --jit-all      compile the statements of the top level that have no loop, which run
                 once, and the cheap functions only they call, to native code too (by
                 default they run on the closure compiler, which prepares them faster
                 than native code can be compiled)
  --jit-report   after the run, list on stderr each function and unit compiled, whether to
                 native code, and which pieces run on the closure compiler and why, then
                 the time compiling to native code took
  --dump-ir[=inlined] FILE.flx  print the typed IR of a program as checked (or after the
                 inlining pass) instead of running it
  --             end of Tessera's options: the next argument is the file (even one starting
                 with `-`); everything after the file is the program's (System::argv)
  --keep-going   the REPL reading piped input exits 0 although chunks failed (without it,
                 1 or 3 after a static or runtime error, as for a file)
  -h, --help     print this help
  -V, --version  print the version and the commit it was built from

Exit status: 0 success, 1 static error (nothing ran), 2 usage error, 3 runtime error,
101 internal error (a bug in Tessera), 130 interrupted (Ctrl-C).";

/// What the command line asks for.
#[derive(Debug, PartialEq, Eq)]
enum Command {
    Help,
    Version,
    Repl,
    Run(String),
    Check(String),
    /// `tessera --explain CODE`: the page of the error index.
    Explain(String),
    /// `tessera doc [FILE]`: the library reference.
    Doc(Option<String>),
    /// `tessera lsp`: the language server on stdio.
    Lsp,
    /// `tessera --dump-ir[=inlined] FILE`: print the program's IR (after inlining when
    /// `inlined`), run nothing.
    DumpIr {
        file: String,
        inlined: bool,
    },
}

/// A parsed command line: the command and the requested thread count.
#[derive(Debug, PartialEq, Eq)]
struct Invocation {
    command: Command,
    threads: Option<usize>,
    /// `--max-…` limits given, by flag.
    limits: Vec<(&'static str, u64)>,
    /// `--validate`: run the IR validator in release builds too.
    validate: bool,
    /// `--no-inline`: call every function instead of inlining known ones (for comparing).
    no_inline: bool,
    /// `--no-jit`: run everything on the closure compiler, no native code.
    no_jit: bool,
    /// `--jit-all`: compile the top level's statements that run once to native code too.
    jit_all: bool,
    /// `--jit-report`: after the run, print what was compiled to native code to stderr.
    jit_report: bool,
    /// The arguments after the program's file, for the program (`System::argv 1` …).
    program_args: Vec<String>,
}

fn main() -> ExitCode {
    let mut arguments: Vec<String> = std::env::args().skip(1).collect();
    let keep_going = take_keep_going(&mut arguments);
    let invocation = match parse_arguments(&arguments) {
        Ok(invocation) => invocation,
        Err(message) => {
            eprintln!("tessera: {message}\nRun `tessera --help` for the usage.");
            return ExitCode::from(2);
        }
    };
    tessera::install_panic_hook();
    tessera::interrupt::install_handler();
    tessera::set_memory_policy();
    // Under `mpirun`, one process per rank runs the program; only rank 0 prints, and one
    // process reports the error that ends the run.
    #[cfg(feature = "mpi")]
    let _mpi = tessera::processes::start();
    tessera::processes::hold_output();
    // Deeply nested programs recurse deeply in the parser, the checker and the evaluator: the
    // session runs on a thread with a large stack (address space reserved, memory committed
    // only as it is used).
    let status = std::thread::Builder::new()
        .name("tessera".into())
        .stack_size(SESSION_STACK_BYTES)
        .spawn(move || {
            tessera::cache_small_blocks();
            run_command(invocation, keep_going)
        })
        .map(|handle| handle.join().unwrap_or(INTERNAL_ERROR_STATUS))
        .unwrap_or_else(|error| {
            eprintln!("tessera: cannot start the interpreter thread: {error}");
            INTERNAL_ERROR_STATUS
        });
    let status = tessera::processes::finish(status);
    ExitCode::from(u8::try_from(status).unwrap_or(1))
}

/// Remove `--keep-going` when it is one of Tessera's options (before the file and any `--`);
/// returns whether it was given.
fn take_keep_going(arguments: &mut Vec<String>) -> bool {
    let options = arguments
        .iter()
        .take_while(|argument| {
            !(matches!(argument.as_str(), "--" | "run" | "check" | "doc")
                || argument.ends_with(".flx"))
        })
        .count();
    match arguments[..options]
        .iter()
        .position(|argument| argument == "--keep-going")
    {
        Some(at) => {
            arguments.remove(at);
            true
        }
        None => false,
    }
}

/// The stack of the interpreter thread.
const SESSION_STACK_BYTES: usize = 256 << 20;

/// The exit status after a panic, which is always a bug in Tessera (reported as an internal
/// error).
const INTERNAL_ERROR_STATUS: i32 = 101;

/// The exit status after Ctrl-C stopped the program (128 + SIGINT, as a shell reports it).
const INTERRUPTED_STATUS: i32 = 130;

/// The code of the "Interrupted." runtime error.
const INTERRUPTED: &str = "R0012";

/// What a session is given from the command line: everything but where output goes.
struct Options {
    limits: Limits,
    validate: bool,
    no_inline: bool,
    no_jit: bool,
    jit_all: bool,
    jit_report: bool,
    threads: Option<usize>,
    /// The program's arguments, its path first.
    args: Vec<String>,
}

impl Options {
    fn of(invocation: &Invocation) -> Options {
        let mut limits = Limits::default();
        for (flag, value) in &invocation.limits {
            if let Some(limit) = tessera::limits::by_flag(flag) {
                limit.set(&mut limits, *value);
            }
        }
        Options {
            limits,
            validate: invocation.validate,
            no_inline: invocation.no_inline,
            no_jit: invocation.no_jit,
            jit_all: invocation.jit_all,
            jit_report: invocation.jit_report,
            threads: invocation.threads,
            args: match &invocation.command {
                Command::Run(file) => std::iter::once(file.clone())
                    .chain(invocation.program_args.iter().cloned())
                    .collect(),
                _ => vec!["tessera".to_string()],
            },
        }
    }

    /// A session writing to a buffered stdout (flushed before diagnostics and at exit) and
    /// the process's stderr, with the program's arguments; a program run from a file reads
    /// the process's stdin, while the REPL's lines are its own (a program there reads an
    /// empty input).
    fn session(&self, reads_stdin: bool) -> Session {
        let stdin: Box<dyn std::io::BufRead + Send> = if reads_stdin {
            Box::new(std::io::BufReader::new(std::io::stdin()))
        } else {
            Box::new(std::io::empty())
        };
        Session::new(Settings {
            limits: self.limits,
            validate: self.validate,
            inline: !self.no_inline,
            jit: !self.no_jit,
            jit_all: self.jit_all,
            threads: self.threads,
            // Several processes: what rank 0 printed must be out before another process's
            // failure ends it, so nothing waits in a buffer.
            stdout: if tessera::processes::world().1 > 1 {
                Box::new(tessera::processes::Unbuffered(std::io::stdout()))
            } else {
                Box::new(BufWriter::new(std::io::stdout()))
            },
            stderr: Box::new(std::io::stderr()),
            stdin,
            args: self.args.clone(),
        })
    }

    /// How diagnostics are rendered on stderr.
    fn render(&self) -> RenderOptions {
        let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        RenderOptions::with_limits(color, &self.limits)
    }
}

fn run_command(invocation: Invocation, keep_going: bool) -> i32 {
    let options = Options::of(&invocation);
    match invocation.command {
        Command::Help => {
            println!("{USAGE}");
            0
        }
        Command::Version => {
            println!(
                "tessera {} (commit {})",
                env!("CARGO_PKG_VERSION"),
                env!("TESSERA_COMMIT")
            );
            0
        }
        Command::Explain(code) => explain(&code),
        Command::Doc(file) => write_library_page(file.as_deref()),
        Command::Lsp => tessera::lsp::run_stdio(),
        Command::Repl => repl::run(options.session(false), keep_going),
        Command::Run(path) => run_file(&path, false, &options),
        Command::Check(path) => run_file(&path, true, &options),
        Command::DumpIr { file, inlined } => dump_ir(&file, inlined, &options),
    }
}

/// Print the error index's page for `code`; an unknown code is a usage error.
fn explain(code: &str) -> i32 {
    match docs::explain(code) {
        Some(page) => {
            print!("{page}");
            0
        }
        None => {
            let codes: Vec<&str> = docs::ERROR_PAGES.iter().map(|(code, _)| *code).collect();
            eprintln!(
                "tessera: no error code `{code}`; the codes are {}",
                codes.join(", ")
            );
            2
        }
    }
}

/// Generate the library reference; write it to `file`, or print it.
fn write_library_page(file: Option<&str>) -> i32 {
    let page = match docs::library_page() {
        Ok(page) => page,
        Err(failures) => {
            eprintln!("tessera: the library reference cannot be generated:\n{failures}");
            return 1;
        }
    };
    match file {
        None => {
            print!("{page}");
            0
        }
        Some(path) => match std::fs::write(path, page) {
            Ok(()) => 0,
            Err(error) => {
                eprintln!("tessera: cannot write `{path}`: {error}");
                2
            }
        },
    }
}

/// Print the IR of a program (see `Command::DumpIr`); returns the exit status.
fn dump_ir(path: &str, inlined: bool, options: &Options) -> i32 {
    let src = match std::fs::read_to_string(path) {
        Ok(src) => src,
        Err(error) => {
            eprintln!("tessera: cannot read `{path}`: {error}");
            return 2;
        }
    };
    match options.session(false).dump_ir(&src, inlined) {
        Ok(ir) => {
            print!("{ir}");
            0
        }
        Err(diags) => {
            eprint!("{}", render_with(&diags, path, &src, &options.render()));
            exit_status(&diags)
        }
    }
}

/// Check (and unless `check_only`, run) one file; returns the exit status.
fn run_file(path: &str, check_only: bool, options: &Options) -> i32 {
    let src = match std::fs::read(path) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(src) => src,
            Err(error) => {
                // A static error at the first byte that is not UTF-8 (E0103), shown on the
                // text with the bad bytes replaced.
                let at = error.utf8_error().valid_up_to();
                let src = String::from_utf8_lossy(error.as_bytes()).into_owned();
                let at = src.floor_char_boundary(at);
                let diag = tessera::not_utf8_diagnostic(&src, at);
                eprint!("{}", render_with(&[diag], path, &src, &options.render()));
                return 1;
            }
        },
        Err(error) => {
            eprintln!("tessera: cannot read `{path}`: {error}");
            return 2;
        }
    };
    // The process ends when this returns: the session is not dropped, because freeing its
    // memory piece by piece (the prelude's definitions, compiled code) only delays the exit.
    let mut session = std::mem::ManuallyDrop::new(options.session(!check_only));
    let result = tessera::catch_internal_error(|| {
        if check_only {
            session.check_source(&src)
        } else {
            session.run_source(&src)
        }
    });
    session.flush();
    if options.jit_report {
        for line in session.jit_report().iter().chain(&session.jit_time_line()) {
            eprintln!("{line}");
        }
    }
    let result = match result {
        Ok(result) => result,
        Err(message) => {
            let diag = tessera::internal_error_diagnostic(&message, &src);
            eprint!("{}", render_with(&[diag], path, &src, &options.render()));
            return INTERNAL_ERROR_STATUS;
        }
    };
    if let Some(status) = session.exit_request() {
        return status;
    }
    match result {
        Ok(()) => 0,
        Err(diags) => {
            eprint!("{}", render_with(&diags, path, &src, &options.render()));
            if diags.iter().any(|diag| diag.code == INTERRUPTED) {
                return INTERRUPTED_STATUS;
            }
            exit_status(&diags)
        }
    }
}

/// Parse the arguments (without the program name). Errors are usage errors (exit 2).
fn parse_arguments(arguments: &[String]) -> Result<Invocation, String> {
    let mut threads = None;
    let mut limits = Vec::new();
    let mut validate = false;
    let mut no_inline = false;
    let mut no_jit = false;
    let mut jit_all = false;
    let mut jit_report = false;
    let mut dump_ir = None;
    let mut positional: Vec<&str> = Vec::new();
    let mut index = 0;
    while index < arguments.len() {
        let argument = arguments[index].as_str();
        match argument {
            "-h" | "--help" => {
                return Ok(Invocation {
                    command: Command::Help,
                    threads,
                    limits,
                    validate,
                    no_inline,
                    no_jit,
                    jit_all,
                    jit_report,
                    program_args: Vec::new(),
                })
            }
            "-V" | "--version" => {
                return Ok(Invocation {
                    command: Command::Version,
                    threads,
                    limits,
                    validate,
                    no_inline,
                    no_jit,
                    jit_all,
                    jit_report,
                    program_args: Vec::new(),
                })
            }
            "--threads" => {
                index += 1;
                let value = arguments.get(index).ok_or("`--threads` needs a number")?;
                threads = Some(parse_thread_count(value)?);
            }
            _ if argument.starts_with("--threads=") => {
                threads = Some(parse_thread_count(&argument["--threads=".len()..])?);
            }
            _ if argument.starts_with("--max-") => {
                let (flag, inline_value) = match argument.split_once('=') {
                    Some((flag, value)) => (flag, Some(value)),
                    None => (argument, None),
                };
                let limit = tessera::limits::by_flag(flag)
                    .ok_or_else(|| format!("unknown option `{flag}`"))?;
                let value = match inline_value {
                    Some(value) => value,
                    None => {
                        index += 1;
                        arguments
                            .get(index)
                            .ok_or_else(|| format!("`{flag}` needs a number"))?
                    }
                };
                limits.push((limit.flag, parse_limit(limit, value)?));
            }
            "--validate" => validate = true,
            "--no-inline" => no_inline = true,
            "--no-jit" => no_jit = true,
            "--jit-all" => jit_all = true,
            "--jit-report" => jit_report = true,
            "--dump-ir" => dump_ir = Some(false),
            "--dump-ir=inlined" => dump_ir = Some(true),
            "--explain" => {
                index += 1;
                let code = arguments
                    .get(index)
                    .ok_or("`--explain` needs an error code")?;
                return Ok(Invocation {
                    command: Command::Explain(code.clone()),
                    threads,
                    limits,
                    validate,
                    no_inline,
                    no_jit,
                    jit_all,
                    jit_report,
                    program_args: Vec::new(),
                });
            }
            "--" => {
                positional.extend(arguments[index + 1..].iter().map(String::as_str));
                break;
            }
            _ if argument.starts_with('-') && argument.len() > 1 => {
                return Err(format!("unknown option `{argument}`"));
            }
            _ => {
                positional.push(argument);
                // Everything after the program's file is the program's, options included.
                if names_the_program(&positional) {
                    positional.extend(arguments[index + 1..].iter().map(String::as_str));
                    break;
                }
            }
        }
        index += 1;
    }
    let mut program_args = Vec::new();
    let command = match positional.as_slice() {
        [] => Command::Repl,
        ["run" | "check"] => return Err(format!("`{}` needs a file", positional[0])),
        ["run", file, rest @ ..] => {
            program_args = rest.iter().map(|a| a.to_string()).collect();
            Command::Run(file.to_string())
        }
        ["check", file] => Command::Check(file.to_string()),
        ["doc"] => Command::Doc(None),
        ["lsp"] => Command::Lsp,
        ["doc", file] => Command::Doc(Some(file.to_string())),
        [file, rest @ ..] if looks_like_a_file(file) && !is_command(file) => {
            program_args = rest.iter().map(|a| a.to_string()).collect();
            Command::Run(file.to_string())
        }
        [word] => return Err(format!("unknown command `{word}`")),
        [first, ..] => {
            return Err(format!(
                "too many arguments after `{first}`: expected one file"
            ))
        }
    };
    let command = match (dump_ir, command) {
        (None, command) => command,
        (Some(inlined), Command::Run(file)) => Command::DumpIr { file, inlined },
        (Some(_), _) => return Err("`--dump-ir` needs one file".into()),
    };
    Ok(Invocation {
        command,
        threads,
        limits,
        validate,
        no_inline,
        no_jit,
        jit_all,
        jit_report,
        program_args,
    })
}

fn is_command(word: &str) -> bool {
    matches!(word, "run" | "check" | "doc" | "lsp")
}

/// Do the positional arguments so far end with the file of a program to run (so that the
/// arguments after it are the program's)?
fn names_the_program(positional: &[&str]) -> bool {
    match positional {
        ["run", _] => true,
        [file] => !is_command(file) && looks_like_a_file(file),
        _ => false,
    }
}

/// A lone argument is a file to run when it exists, names a `.flx` file or contains a path
/// separator; otherwise it is taken for a mistyped command.
fn looks_like_a_file(argument: &str) -> bool {
    argument.ends_with(".flx")
        || argument.contains('/')
        || argument.contains(std::path::MAIN_SEPARATOR)
        || std::path::Path::new(argument).exists()
}

fn parse_limit(limit: &tessera::limits::Limit, value: &str) -> Result<u64, String> {
    match value.parse::<u64>() {
        Ok(number) if number >= limit.minimum => Ok(number),
        _ => Err(format!(
            "`{}` needs a whole number of at least {}, not `{value}`",
            limit.flag, limit.minimum
        )),
    }
}

fn parse_thread_count(value: &str) -> Result<usize, String> {
    let most = tessera::limits::max_threads();
    match value.parse::<usize>() {
        Ok(count) if count > most => Err(format!(
            "`--threads` is at most {most} on this machine ({} per core), not `{value}`",
            tessera::limits::MAX_THREADS_PER_CORE
        )),
        Ok(count) if count > 0 => Ok(count),
        _ => Err(format!(
            "`--threads` needs a positive whole number, not `{value}`"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(arguments: &[&str], expected: Result<Invocation, &str>) {
        let arguments: Vec<String> = arguments.iter().map(|a| a.to_string()).collect();
        let actual = parse_arguments(&arguments);
        match expected {
            Ok(invocation) => assert_eq!(actual, Ok(invocation), "{arguments:?}"),
            Err(fragment) => {
                let message = actual.expect_err("a usage error");
                assert!(message.contains(fragment), "{message:?} lacks {fragment:?}");
            }
        }
    }

    fn plain(command: Command) -> Result<Invocation, &'static str> {
        Ok(Invocation {
            command,
            threads: None,
            limits: Vec::new(),
            validate: false,
            no_inline: false,
            no_jit: false,
            jit_all: false,
            jit_report: false,
            program_args: Vec::new(),
        })
    }

    #[test]
    fn commands() {
        check(&[], plain(Command::Repl));
        check(&["prog.flx"], plain(Command::Run("prog.flx".into())));
        check(&["run", "prog.flx"], plain(Command::Run("prog.flx".into())));
        check(&["run", "prog"], plain(Command::Run("prog".into())));
        check(
            &["check", "a/b.flx"],
            plain(Command::Check("a/b.flx".into())),
        );
        check(&["--help", "whatever"], plain(Command::Help));
        check(&["-V"], plain(Command::Version));
        check(&["--", "-odd.flx"], plain(Command::Run("-odd.flx".into())));
        let validated = Ok(Invocation {
            command: Command::Run("p.flx".into()),
            threads: None,
            limits: Vec::new(),
            validate: true,
            no_inline: false,
            no_jit: false,
            jit_all: false,
            jit_report: false,
            program_args: Vec::new(),
        });
        check(&["--validate", "p.flx"], validated);
        let called = Ok(Invocation {
            command: Command::Run("p.flx".into()),
            threads: None,
            limits: Vec::new(),
            validate: false,
            no_inline: true,
            no_jit: false,
            jit_all: false,
            jit_report: false,
            program_args: Vec::new(),
        });
        check(&["--no-inline", "p.flx"], called);
        check(
            &["--explain", "E0401"],
            plain(Command::Explain("E0401".into())),
        );
        check(&["doc"], plain(Command::Doc(None)));
        check(&["lsp"], plain(Command::Lsp));
        check(
            &["doc", "out.md"],
            plain(Command::Doc(Some("out.md".into()))),
        );
    }

    #[test]
    fn threads() {
        let expected = Ok(Invocation {
            command: Command::Run("p.flx".into()),
            threads: Some(4),
            limits: Vec::new(),
            validate: false,
            no_inline: false,
            no_jit: false,
            jit_all: false,
            jit_report: false,
            program_args: Vec::new(),
        });
        check(&["--threads", "4", "p.flx"], expected);
        let expected = Ok(Invocation {
            command: Command::Repl,
            threads: Some(2),
            limits: Vec::new(),
            validate: false,
            no_inline: false,
            no_jit: false,
            jit_all: false,
            jit_report: false,
            program_args: Vec::new(),
        });
        check(&["--threads=2"], expected);
        check(&["--threads", "0"], Err("positive whole number"));
        check(&["--threads"], Err("needs a number"));
        check(&["--threads", "100000"], Err("at most"));
    }

    #[test]
    fn limits() {
        let expected = Ok(Invocation {
            command: Command::Run("p.flx".into()),
            threads: None,
            limits: vec![("--max-nesting", 50), ("--max-errors", 3)],
            validate: false,
            no_inline: false,
            no_jit: false,
            jit_all: false,
            jit_report: false,
            program_args: Vec::new(),
        });
        check(
            &["--max-nesting", "50", "--max-errors=3", "p.flx"],
            expected,
        );
        check(&["--max-nesting", "2"], Err("at least 8"));
        check(&["--max-frob", "2"], Err("unknown option `--max-frob`"));
        check(&["--max-errors"], Err("needs a number"));
    }

    #[test]
    fn usage_errors() {
        check(&["frobnicate"], Err("unknown command `frobnicate`"));
        check(&["--frob"], Err("unknown option `--frob`"));
        check(&["run"], Err("`run` needs a file"));
        check(&["--explain"], Err("`--explain` needs an error code"));
        check(&["doc", "a.md", "b.md"], Err("too many arguments"));
        check(&["check", "a.flx", "b"], Err("too many arguments"));
    }

    #[test]
    fn program_arguments() {
        let with_args = |file: &str, args: &[&str]| {
            Ok(Invocation {
                command: Command::Run(file.into()),
                threads: None,
                limits: Vec::new(),
                validate: false,
                no_inline: false,
                no_jit: false,
                jit_all: false,
                jit_report: false,
                program_args: args.iter().map(|a| a.to_string()).collect(),
            })
        };
        check(&["p.flx", "a", "b"], with_args("p.flx", &["a", "b"]));
        check(&["run", "p.flx", "a"], with_args("p.flx", &["a"]));
        // After the file every argument is the program's, options and `--` included.
        check(
            &["p.flx", "--no-jit", "--", "-x"],
            with_args("p.flx", &["--no-jit", "--", "-x"]),
        );
        check(&["--", "-odd.flx", "-v"], with_args("-odd.flx", &["-v"]));
        check(&["run", "--", "p", "1"], with_args("p", &["1"]));
    }
}
