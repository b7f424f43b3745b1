//! Tessera: an interpreter for a Felix-style array language built on compact linear types.
//!
//! The pipeline: `syntax` (lex, parse) -> `check` (names, types, kinds; typed IR in `core`)
//! -> `eval` (compile the IR, run it). Those stages are private: `Session` is the facade the
//! command line, the REPL and the tests all use, with the settings it is given, the
//! diagnostics it returns and how they are rendered, and the documentation of the library.

#![warn(missing_docs)]

mod check;
mod core;
mod diag;
mod display;
mod eval;
pub mod interrupt;
pub mod limits;
pub mod lsp;
mod memory;
mod settings;
mod syntax;
mod types;

use std::io::Write;
use std::sync::Arc;

use check::Checker;
use diag::syntax_diagnostic;
use eval::Machine;
use syntax::Span;
use syntax::{ChunkParse, SyntaxError};
use types::Type;

pub use check::browse::{is_builtin_type, NameKind, ScopeName, BUILTIN_TYPES};
pub use core::doc::{doc_text, DocEntry, Origin as DocOrigin};
pub use core::prims::Section;
pub use diag::{
    exit_status, render, render_with, CallFrame, Diagnostic, Origin, RenderOptions, SourceKind,
    SourceText, Stage,
};
pub use display::Display;
/// The processes of a distributed run (`mpirun`): starting MPI, and which process prints.
pub use eval::distributed as processes;
pub use memory::{cache_small_blocks, set_memory_policy};

/// An array of numbers as pictures see it: its dimensions (outermost first), its values in
/// order, and its type as printed.
#[derive(Clone, Debug, PartialEq)]
pub struct NumericArray {
    /// The dimensions, outermost first.
    pub dims: Vec<usize>,
    /// The values in order (the last dimension varies fastest).
    pub values: Vec<f64>,
    /// The array's type as printed.
    pub type_text: String,
}
pub use settings::{Settings, SharedBuffer};

/// The library written in Tessera itself, loaded at the start of every session.
pub const PRELUDE: &str = include_str!("../stdlib/prelude.flx");

/// The parse of `PRELUDE`, stored (`syntax::stored`): start-up reads it instead of parsing.
const PRELUDE_TREE: &[u8] = include_bytes!("../stdlib/prelude.ast");

/// The file name under which diagnostics in the prelude are rendered.
pub const PRELUDE_NAME: &str = "prelude.flx";

/// The library written in Tessera: every `stdlib/*.flx` file, by name (the prelude is loaded
/// into every session; a test checks that this list names every file of `stdlib/`).
pub const STDLIB: &[(&str, &str)] = &[(PRELUDE_NAME, PRELUDE)];

/// The name under which a REPL chunk other than the one being reported appears in a runtime
/// error's locations (a function defined by an earlier chunk).
pub const EARLIER_INPUT_NAME: &str = "<earlier input>";

/// One interpreter session: the checker's scopes, the evaluator's functions and globals, its
/// settings, and the writer that receives all program output. Definitions persist from one
/// call to the next, so the REPL and `:load` build on what ran before.
pub struct Session {
    checker: Checker,
    machine: Machine,
    out: Box<dyn Write + Send>,
    /// The program's standard error (`eprint`, `cstderr`).
    err: Box<dyn Write + Send>,
    /// The limits (`Settings::limits`), also given to the checker and the machine.
    limits: limits::Limits,
    /// `Settings::validate` and `Settings::inline`, for a fresh checker and machine (`reset`).
    validate: bool,
    inline: bool,
    /// `Settings::jit` and `Settings::jit_all`.
    jit: bool,
    jit_all: bool,
    /// The session's own worker threads (`Settings::threads`); rayon's global pool when
    /// `None`.
    pool: Option<Arc<rayon::ThreadPool>>,
    /// How expression chunks show their value (the REPL's display; exact `_strr` by default).
    display: display::Display,
    /// The source of each unit run that defines functions or globals, by the machine's unit
    /// number: a runtime error inside one of its functions, reported from a later unit, is
    /// shown against that source (`Diagnostic::origin`, the call stack's frames), and so is
    /// the definition of one of its globals read before it got its value.
    sources: Vec<Option<Arc<SourceText>>>,
}

/// What became of one REPL chunk.
#[derive(Debug)]
pub enum ChunkResult {
    /// The chunk ran (an expression chunk has printed `VALUE : TYPE`).
    Done,
    /// The parser ran out of input: append the next line and try again.
    Incomplete,
    /// A static error (nothing ran) or a runtime error (what ran before it stays).
    Failed(Vec<Diagnostic>),
}

impl Session {
    /// A fresh session with `settings`, with the prelude loaded.
    ///
    /// Panics when the prelude itself fails: that is a bug in Tessera, not in a user program.
    pub fn new(settings: Settings) -> Session {
        let Settings {
            limits,
            validate,
            inline,
            jit,
            jit_all,
            threads,
            stdout,
            stderr,
            stdin,
            args,
        } = settings;
        let mut session = Session {
            checker: Checker::new(),
            machine: Machine::new(),
            out: stdout,
            err: stderr,
            limits,
            validate,
            inline,
            jit,
            jit_all,
            pool: None,
            display: display::Display::EXACT,
            sources: Vec::new(),
        };
        if let Some(threads) = threads {
            // Refused threads leave the global pool in place (see `settings::thread_pool`).
            let _ = session.set_threads(threads);
        }
        session.configure();
        session
            .machine
            .replace_world(eval::world::World::new(args, stdin));
        session.load_prelude();
        session
    }

    /// Set the program's arguments after its path (the REPL's `:set args`).
    pub fn set_args(&mut self, args: Vec<String>) {
        self.machine.world_mut().set_args(args);
    }

    /// The program's arguments, its path first.
    pub fn args(&self) -> Vec<String> {
        self.machine.world().args().to_vec()
    }

    /// The exit status a program asked for with `System::exit`, once: the run that asked
    /// ended there, with its output flushed.
    pub fn exit_request(&mut self) -> Option<i32> {
        self.machine.exit_request()
    }

    /// Give a fresh checker and machine the session's settings.
    fn configure(&mut self) {
        self.checker.set_validate(self.validate);
        self.machine.set_limits(self.limits);
        memory::set_budget(self.limits.max_memory_bytes);
        self.machine.set_inlining(self.inline);
        self.machine.set_native(self.jit, self.jit_all);
    }

    /// What the native code backend made of each function instance and unit run so far:
    /// one line per entry, `native` or `closures`, with the pieces left to the closure
    /// compiler and why (`--jit-report`, `:jit`).
    pub fn jit_report(&self) -> Vec<String> {
        self.machine.native_report()
    }

    /// The line `--jit-report` and `:jit` end with: the time spent compiling to native code
    /// in this session (the prelude's included); `None` with native code off.
    pub fn jit_time_line(&self) -> Option<String> {
        let time = self.machine.native_compile_time()?;
        Some(format!(
            "compiling to native code took {:.1} ms in this session",
            time.as_secs_f64() * 1000.0
        ))
    }

    /// Run parallel loops on a pool of `threads` worker threads from now on (`:set threads`).
    /// When the system refuses them, the pool stays as it was; the error says why.
    pub fn set_threads(&mut self, threads: usize) -> Result<(), String> {
        let pool = settings::thread_pool(threads).map_err(|error| error.to_string())?;
        self.pool = Some(Arc::new(pool));
        Ok(())
    }

    /// The number of worker threads parallel loops use.
    pub fn threads(&self) -> usize {
        match &self.pool {
            Some(pool) => pool.current_num_threads(),
            None => rayon::current_num_threads(),
        }
    }

    /// The session's limits.
    pub fn limits(&self) -> &limits::Limits {
        &self.limits
    }

    /// How to render this session's diagnostics (its `--max-errors` and `--max-line-width`).
    pub fn render_options(&self, color: bool) -> diag::RenderOptions {
        diag::RenderOptions::with_limits(color, &self.limits)
    }

    /// Run `work` in the session's scope: on its pool when it has one (so parallel loops use
    /// those threads), with types printed at its `--max-type-width`.
    fn scoped<R: Send>(&mut self, work: impl FnOnce(&mut Session) -> R + Send) -> R {
        let width = limits::as_usize(self.limits.max_type_width);
        match self.pool.clone() {
            Some(pool) => pool.install(|| types::print::with_type_width(width, || work(self))),
            None => types::print::with_type_width(width, || work(self)),
        }
    }

    fn parse_options(&self) -> syntax::ParseOptions {
        syntax::ParseOptions {
            max_nesting: limits::as_usize(self.limits.max_nesting),
        }
    }

    fn load_prelude(&mut self) {
        if is_blank_source(PRELUDE) {
            return;
        }
        if let Err(diags) = self.scoped(|s| s.run_prelude()) {
            let report = format!(
                "the prelude failed to load (a bug in Tessera):\n{}",
                diag::render(&diags, PRELUDE_NAME, PRELUDE, false)
            );
            // Said where the user sees it too: no session exists yet to report the panic.
            let _ = self.err.write_all(report.as_bytes());
            panic!("{report}");
        }
    }

    /// Parse (reporting every syntax error), check and run a whole program as one new scope.
    /// On a static error nothing runs; on a runtime error the output before it stays written.
    pub fn run_source(&mut self, src: &str) -> Result<(), Vec<Diagnostic>> {
        self.scoped(|s| s.run_unit(src, "<program>", SourceKind::File))
    }

    /// `run_source` for the file `name` (`:load`): a runtime error in one of its functions
    /// called from a later chunk names the file.
    pub fn run_file_source(&mut self, src: &str, name: &str) -> Result<(), Vec<Diagnostic>> {
        self.scoped(|s| s.run_unit(src, name, SourceKind::File))
    }

    fn run_unit(&mut self, src: &str, name: &str, kind: SourceKind) -> Result<(), Vec<Diagnostic>> {
        let stmts = parse_program_or_errors(src, self.parse_options())?;
        self.run_parsed(&stmts, src, name, kind)
    }

    /// The prelude, read once per process from its stored parse (parsed, with the default
    /// nesting limit, when the text was edited since the parse was stored) and checked and run
    /// in this session.
    fn run_prelude(&mut self) -> Result<(), Vec<Diagnostic>> {
        static PARSED: std::sync::OnceLock<Result<Vec<syntax::ast::Stmt>, Vec<Diagnostic>>> =
            std::sync::OnceLock::new();
        let parsed = PARSED.get_or_init(|| match syntax::stored::decode(PRELUDE, PRELUDE_TREE) {
            Some(stmts) => Ok(stmts),
            None => parsed_or_errors(
                PRELUDE,
                syntax::parse_program_with(PRELUDE, Default::default()),
            ),
        });
        let stmts = parsed.as_ref().map_err(Clone::clone)?;
        self.run_parsed(stmts, PRELUDE, PRELUDE_NAME, SourceKind::Library)
    }

    fn run_parsed(
        &mut self,
        stmts: &[syntax::ast::Stmt],
        src: &str,
        name: &str,
        kind: SourceKind,
    ) -> Result<(), Vec<Diagnostic>> {
        self.checker.set_library_source(kind == SourceKind::Library);
        let checked = self.checker.check_program(stmts);
        self.checker.set_library_source(false);
        let unit = checked?;
        self.remember_source(&unit, name, src, kind);
        self.machine
            .run_with_stderr(&unit, &mut *self.out, &mut *self.err)
            .map_err(|diag| vec![self.resolve_origins(diag)])?;
        Ok(())
    }

    /// Keep the source of a unit about to run when it defines functions or globals (see
    /// `sources`).
    fn remember_source(&mut self, unit: &core::ir::Unit, name: &str, src: &str, kind: SourceKind) {
        // The library's functions may be checked (and defined) by later units.
        if unit.functions.is_empty() && unit.globals.is_empty() && !unit.library {
            return;
        }
        let number = self.machine.next_unit() as usize;
        if self.sources.len() <= number {
            self.sources.resize(number + 1, None);
        }
        self.sources[number] = Some(Arc::new(SourceText {
            name: name.to_string(),
            text: src.to_string(),
            kind,
        }));
    }

    /// A runtime error with the spans of earlier units tied to their sources.
    fn resolve_origins(&self, diag: Diagnostic) -> Diagnostic {
        let source = |unit: u32| self.sources.get(unit as usize).cloned().flatten();
        let current = self.machine.next_unit().saturating_sub(1);
        diag.place_secondaries(current, source)
            .resolve_origins(source)
    }

    /// Parse and check a whole program without running anything (`tessera check`).
    pub fn check_source(&mut self, src: &str) -> Result<(), Vec<Diagnostic>> {
        self.scoped(|s| {
            let stmts = parse_program_or_errors(src, s.parse_options())?;
            s.checker.check_program(&stmts)?;
            Ok(())
        })
    }

    /// The typed IR of a whole program as text (`tessera --dump-ir`): as checked, or when
    /// `inlined` after the inlining pass, as the evaluator compiles it. Nothing runs.
    pub fn dump_ir(&mut self, src: &str, inlined: bool) -> Result<String, Vec<Diagnostic>> {
        let stmts = parse_program_or_errors(src, self.parse_options())?;
        let unit = self.checker.check_program(&stmts)?;
        let unit = if inlined {
            self.machine.inlined_ir(&unit)
        } else {
            unit
        };
        Ok(core::print::unit(&unit))
    }

    /// Evaluate one REPL chunk. An expression chunk prints `VALUE : TYPE` (`<fun>` for a
    /// function value, nothing for `void`); any other chunk runs as statements. A chunk of
    /// only whitespace and comments does nothing. A panic (a bug) is caught and reported as an
    /// internal error; the session keeps the definitions made before the chunk.
    pub fn eval_chunk(&mut self, src: &str) -> ChunkResult {
        self.scoped(|s| s.eval_chunk_guarded(src))
    }

    fn eval_chunk_guarded(&mut self, src: &str) -> ChunkResult {
        // The checker as it was before the chunk, to go back to when the chunk fails: a clone
        // shares the session state's blocks, and the chunk copies only those it changes.
        let checker_before = self.checker.clone();
        let globals_before = self.machine.n_globals();
        match catch_internal_error(|| self.eval_chunk_unguarded(src, &checker_before)) {
            Ok(result) => result,
            Err(message) => {
                self.checker = checker_before;
                self.machine.truncate_globals(globals_before);
                ChunkResult::Failed(vec![internal_error_diagnostic(&message, src)])
            }
        }
    }

    fn eval_chunk_unguarded(&mut self, src: &str, checker_before: &Checker) -> ChunkResult {
        // A Ctrl-C pressed before this chunk (at the prompt), or a memory overrun reported by
        // an earlier chunk, does not stop it.
        interrupt::clear();
        memory::clear();
        if is_blank_source(src) {
            return ChunkResult::Done;
        }
        let chunk = match syntax::parse_chunk_with(src, self.parse_options()) {
            ChunkParse::Complete(chunk) => chunk,
            ChunkParse::Incomplete => return ChunkResult::Incomplete,
            ChunkParse::Invalid(errors) => {
                return ChunkResult::Failed(missing_semicolons(syntax_diagnostics(&errors), src))
            }
        };
        let globals_before = self.machine.n_globals();
        // An expression chunk names its value `it` (checked as `val it = e; it`); where that
        // does not check (a `void` or generic expression), the expression alone.
        let named_it = match &chunk {
            syntax::ast::Chunk::Expr(expr) => match self.checker.check_chunk_naming_it(expr) {
                Ok(unit) if unit.result.as_ref().is_some_and(|e| !e.ty.is_void()) => Some(unit),
                Ok(_) => {
                    self.checker = checker_before.clone();
                    self.machine.truncate_globals(globals_before);
                    None
                }
                Err(_) => None,
            },
            syntax::ast::Chunk::Stmts(_) => None,
        };
        let names_it = named_it.is_some();
        let unit = match named_it {
            Some(unit) => unit,
            None => match self.checker.check_chunk(&chunk) {
                Ok(unit) => unit,
                Err(diags) => return ChunkResult::Failed(diags),
            },
        };
        let result_type = unit.result.as_ref().map(|expr| expr.ty.clone());
        self.remember_source(&unit, EARLIER_INPUT_NAME, src, SourceKind::EarlierInput);
        let value = match self
            .machine
            .run_with_stderr(&unit, &mut *self.out, &mut *self.err)
        {
            Ok(value) => value,
            Err(diag) => {
                // A runtime error (or Ctrl-C) keeps what ran before it, as in a file run with
                // `:load`: the chunk's definitions stay (a variable whose initialiser did not
                // run is an error to read), and so do its effects on earlier variables and
                // the output. An expression's `it` is not defined.
                if names_it {
                    self.checker = checker_before.clone();
                    self.machine.forget_definitions(&unit, globals_before);
                }
                return ChunkResult::Failed(vec![self.resolve_origins(diag)]);
            }
        };
        if let (Some(result_type), Some(value)) = (result_type, value) {
            if let Some(text) = display::result_text(&value, &result_type, &self.display) {
                self.print_line(&text);
            }
        }
        ChunkResult::Done
    }

    /// The type of an expression, printed as the type display writes it, without running it (`:type`). A
    /// variable declared with a type that names a typedef is shown as declared
    /// (`grid[3 \* 4]`); [`Session::normal_type_of`] always gives the normal form.
    pub fn type_of(&mut self, src: &str) -> Result<String, Vec<Diagnostic>> {
        self.scoped(|s| {
            let expr = s.parse_expr(src)?;
            if let syntax::ast::ExprKind::Name(name) = &expr.node {
                if let Some(written) = s.checker.written_type_of(name) {
                    return Ok(written);
                }
            }
            s.type_of_expression(src, false, false)
        })
    }

    /// The type of an expression in normal form and, when a type functor derived it, the
    /// functor's application: `int32  = promote(int8, int32)` (`:type -v`).
    pub fn explained_type_of(&mut self, src: &str) -> Result<String, Vec<Diagnostic>> {
        self.scoped(|s| s.type_of_expression(src, true, true))
    }

    /// The type of an expression in normal form, typedefs expanded (`:type -n`).
    pub fn normal_type_of(&mut self, src: &str) -> Result<String, Vec<Diagnostic>> {
        self.scoped(|s| s.type_of_expression(src, false, true))
    }

    fn parse_expr(&self, src: &str) -> Result<syntax::ast::Expr, Vec<Diagnostic>> {
        syntax::parse_expr_with(src, self.parse_options())
            .map_err(|errors| syntax_diagnostics(&errors))
    }

    /// The type of the expression `src`, as written or in normal form (`normal`), with the
    /// type functor that derived it when `explain`.
    fn type_of_expression(
        &mut self,
        src: &str,
        explain: bool,
        normal: bool,
    ) -> Result<String, Vec<Diagnostic>> {
        let expr = self.parse_expr(src)?;
        match self.checker.explain_type_of_expr(&expr) {
            Ok((ty, derivation)) => {
                let ty = if normal { ty.normal_form() } else { ty };
                let shown = types::print::type_to_string(&ty);
                Ok(match derivation {
                    Some(d) if explain => format!("{shown}  = {d}"),
                    _ => shown,
                })
            }
            // A library primitive or a generic function named alone: its declared signature.
            Err(diags) => match &expr.node {
                syntax::ast::ExprKind::Name(name) => self.checker.signature_of(name).ok_or(diags),
                _ => Err(diags),
            },
        }
    }

    /// The documentation of a library primitive or operator, or of a documented function of
    /// `stdlib/` (`:doc NAME`): the text of its entry in the library reference.
    pub fn doc_of(&mut self, name: &str) -> Option<String> {
        let name = name.trim();
        core::doc::prim_doc(name).or_else(|| stdlib_doc(name))
    }

    /// The entries of the library reference for the documented definitions of `stdlib/`, in
    /// the order of `STDLIB`, each function's signature as `:type` prints it in this session
    /// (a type's signature is its definition as written).
    pub fn stdlib_entries(&mut self) -> Vec<DocEntry> {
        stdlib_docs()
            .iter()
            .map(|doc| self.stdlib_entry(doc))
            .collect()
    }

    fn stdlib_entry(&mut self, doc: &core::doc::StdlibDoc) -> DocEntry {
        let signatures = doc
            .definitions
            .iter()
            .map(|(keyword, name, line)| match keyword.as_str() {
                "fun" | "proc" | "gen" | "val" | "var" => match self.type_of(name) {
                    Ok(ty) => format!("{} : {ty}", shown_name(name)),
                    Err(_) => line
                        .replace("_list_", "List::")
                        .replace("_opt_", "Option::")
                        .replace("_varray_", "Varray::")
                        .replace("_darray_", "Darray::")
                        .replace("_system_", "System::"),
                },
                _ => line.clone(),
            })
            .collect();
        DocEntry {
            names: doc
                .definitions
                .iter()
                .map(|(_, n, _)| shown_name(n))
                .collect(),
            signatures,
            doc: doc.doc.clone(),
            example: doc.example.clone(),
            origin: DocOrigin::Stdlib { file: doc.file },
        }
    }

    /// The most specific kind of a type: `UNITSUM`, `COMPACTLINEAR` or `TYPE` (`:kind`).
    pub fn kind_of(&mut self, src: &str) -> Result<String, Vec<Diagnostic>> {
        self.scoped(|s| {
            let ty = s.resolve_type_source(src)?;
            Ok(types::kind::kind_of(&ty).name().to_string())
        })
    }

    /// The number of values of a compact linear type, in decimal, any size (`:size`).
    pub fn size_of(&mut self, src: &str) -> Result<String, Vec<Diagnostic>> {
        self.scoped(|s| s.size_of_type(src))
    }

    fn size_of_type(&mut self, src: &str) -> Result<String, Vec<Diagnostic>> {
        let ty = self.resolve_type_source(src)?;
        match types::size::size_of(&ty) {
            Some(size) => Ok(size.to_string()),
            None if types::kind::is_compact(&ty) && !ty.has_var() => Err(vec![Diagnostic::new(
                Stage::Static,
                "E0401",
                format!("the size of `{ty}` is too large to compute"),
                whole_span(src),
            )
            .with_label("an exponent of this type does not fit in 32 bits")]),
            None => Err(vec![not_compact_diagnostic(src, &ty, "has no size")]),
        }
    }

    /// The mixed-radix layout line of a compact linear type or of an array's index
    /// (`:layout`).
    pub fn layout_of(&mut self, src: &str) -> Result<String, Vec<Diagnostic>> {
        self.scoped(|s| {
            let ty = s.resolve_type_source(src)?;
            types::layout::describe_layout(&ty).map_err(|message| {
                vec![
                    Diagnostic::new(Stage::Static, "E0401", message, whole_span(src))
                        .with_label(format!("this is `{ty}`")),
                ]
            })
        })
    }

    /// Whether two types are layout-identical, per the isomorphism engine (`:iso A, B`).
    pub fn iso_of(&mut self, src: &str) -> Result<String, Vec<Diagnostic>> {
        self.scoped(|s| s.iso_of_types(src))
    }

    fn iso_of_types(&mut self, src: &str) -> Result<String, Vec<Diagnostic>> {
        let type_exprs = syntax::parse_type_list_with(src, self.parse_options())
            .map_err(|errors| syntax_diagnostics(&errors))?;
        let [first, second] = type_exprs.as_slice() else {
            return Err(vec![Diagnostic::new(
                Stage::Static,
                "E0100",
                format!("`:iso` takes two types, found {}", type_exprs.len()),
                whole_span(src),
            )
            .with_label("expected `A, B`")]);
        };
        let first = self.checker.resolve_type(first)?;
        let second = self.checker.resolve_type(second)?;
        Ok(types::iso::iso_line(&first, &second))
    }

    /// How expression chunks show their values (`Display::EXACT` unless the REPL sets it).
    pub fn display(&self) -> display::Display {
        self.display
    }

    /// Show the values of later expression chunks with `display` (the REPL's print limit,
    /// grids and colours).
    pub fn set_display(&mut self, display: display::Display) {
        self.display = display;
    }

    /// Evaluate the expression or statements `src` without printing a result or naming
    /// `it` (`:timeit`, `:plot`): the value and its type, `None` for statements. A failure
    /// keeps nothing of the chunk's definitions.
    fn evaluate_unnamed(
        &mut self,
        src: &str,
    ) -> Result<Option<(eval::value::Value, types::Type)>, Vec<Diagnostic>> {
        interrupt::clear();
        memory::clear();
        let chunk = match syntax::parse_chunk_with(src, self.parse_options()) {
            ChunkParse::Complete(chunk) => chunk,
            ChunkParse::Incomplete => return Err(vec![incomplete_input_diagnostic(src)]),
            ChunkParse::Invalid(errors) => return Err(syntax_diagnostics(&errors)),
        };
        let checker_before = self.checker.clone();
        let globals_before = self.machine.n_globals();
        let unit = self.checker.check_chunk(&chunk)?;
        let result_type = unit.result.as_ref().map(|expr| expr.ty.clone());
        self.remember_source(&unit, EARLIER_INPUT_NAME, src, SourceKind::EarlierInput);
        match self
            .machine
            .run_with_stderr(&unit, &mut *self.out, &mut *self.err)
        {
            Ok(value) => Ok(value.zip(result_type)),
            Err(diag) => {
                self.checker = checker_before;
                self.machine.forget_definitions(&unit, globals_before);
                Err(vec![self.resolve_origins(diag)])
            }
        }
    }

    /// Run `src` (an expression or statements) without showing its value; the seconds it
    /// took, checking and compiling included (`:timeit`).
    pub fn time_quietly(&mut self, src: &str) -> Result<f64, Vec<Diagnostic>> {
        self.scoped(|s| {
            let started = std::time::Instant::now();
            s.evaluate_unnamed(src)?;
            Ok(started.elapsed().as_secs_f64())
        })
    }

    /// The numbers of an expression whose value is an array of numbers, with its dimensions
    /// outermost first, and its type (`:plot`, `:hist`); `Err` with a message (not
    /// diagnostics) when the value is not such an array.
    pub fn numeric_array_of(&mut self, src: &str) -> Result<NumericArray, Vec<Diagnostic>> {
        self.scoped(|s| {
            let Some((value, ty)) = s.evaluate_unnamed(src)? else {
                return Err(Vec::new());
            };
            let type_text = types::print::type_to_string(&ty);
            match display::numeric_array(&value, &ty) {
                Some((dims, values)) => Ok(NumericArray {
                    dims,
                    values,
                    type_text,
                }),
                None => Err(vec![Diagnostic::new(
                    Stage::Static,
                    "E0301",
                    format!("a picture needs an array of numbers, and this is `{type_text}`"),
                    syntax::span::Span::new(0, src.len()),
                )
                .with_label(format!("this is `{type_text}`"))]),
            }
        })
    }

    /// A type written in source, resolved and printed in normal form (`:browse`).
    pub fn normal_type_of_type(&mut self, src: &str) -> Option<String> {
        self.scoped(|s| {
            let ty = s.resolve_type_source(src).ok()?;
            Some(types::print::type_to_string(&ty))
        })
    }

    /// The names in scope: the user's definitions first, then the library's (`:browse`,
    /// completion).
    pub fn names_in_scope(&mut self) -> Vec<check::browse::ScopeName> {
        self.scoped(|s| s.checker.names_in_scope())
    }

    /// Forget every definition: a fresh checker and machine with the prelude loaded again.
    pub fn reset(&mut self) {
        self.checker = Checker::new();
        // The program's world (arguments, input, open files) is not a definition: it stays.
        let world = self.machine.replace_world(eval::world::World::default());
        self.machine = Machine::new();
        self.machine.replace_world(world);
        self.configure();
        self.sources.clear();
        self.load_prelude();
    }

    /// Write one line of output (a command's answer) to the session's writer. A failed write
    /// (a closed pipe) is ignored, as for program output.
    pub fn print_line(&mut self, line: &str) {
        let _ = writeln!(self.out, "{line}");
    }

    /// Flush the output writer (before diagnostics go to stderr, and at exit).
    pub fn flush(&mut self) {
        let _ = self.out.flush();
        let _ = self.err.flush();
    }

    fn resolve_type_source(&mut self, src: &str) -> Result<Type, Vec<Diagnostic>> {
        let type_expr = syntax::parse_type_with(src, self.parse_options())
            .map_err(|errors| syntax_diagnostics(&errors))?;
        self.checker.resolve_type(&type_expr)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.flush();
    }
}

/// Every documented definition of `stdlib/`.
fn stdlib_docs() -> Vec<core::doc::StdlibDoc> {
    STDLIB
        .iter()
        .flat_map(|(file, source)| core::doc::stdlib_docs_of(file, source))
        .collect()
}

/// The name the reference gives a prelude definition: `_list_map` and `_opt_get`, the list
/// and option functions that a call of `map` or `get` falls back on, are Felix's `List::map`
/// and `Option::get`.
fn shown_name(name: &str) -> String {
    if let Some(rest) = name.strip_prefix("_list_") {
        format!("List::{rest}")
    } else if let Some(rest) = name.strip_prefix("_opt_") {
        format!("Option::{rest}")
    } else if let Some(rest) = name.strip_prefix("_varray_") {
        format!("Varray::{rest}")
    } else if let Some(rest) = name.strip_prefix("_darray_") {
        format!("Darray::{rest}")
    } else if let Some(rest) = name.strip_prefix("_system_") {
        format!("System::{rest}")
    } else {
        name.to_string()
    }
}

/// The `:doc` text of a documented stdlib definition, its signatures read in a fresh session
/// (so a user's definition of the same name does not change them).
fn stdlib_doc(name: &str) -> Option<String> {
    let doc = stdlib_docs().into_iter().find(|doc| {
        doc.definitions
            .iter()
            .any(|(_, n, _)| n == name || shown_name(n) == name)
    })?;
    let mut session = Session::new(Settings::default().with_stdout(std::io::sink()));
    Some(doc_text(&session.stdlib_entry(&doc)))
}

/// The entries of the library reference for the primitive table, in its order: each
/// primitive's own entry, then one for each of its other names.
pub fn primitive_entries() -> Vec<DocEntry> {
    core::prims::PRIMS
        .iter()
        .flat_map(core::doc::prim_entries)
        .collect()
}

pub(crate) fn parse_program_or_errors(
    src: &str,
    options: syntax::ParseOptions,
) -> Result<Vec<syntax::ast::Stmt>, Vec<Diagnostic>> {
    parsed_or_errors(src, syntax::parse_program_with(src, options))
}

/// A parse's statements, or its errors as diagnostics.
fn parsed_or_errors(
    src: &str,
    (stmts, errors): (Vec<syntax::ast::Stmt>, Vec<syntax::SyntaxError>),
) -> Result<Vec<syntax::ast::Stmt>, Vec<Diagnostic>> {
    if errors.is_empty() {
        Ok(stmts)
    } else {
        Err(missing_semicolons(syntax_diagnostics(&errors), src))
    }
}

/// A syntax error that expected a `;` and found the start of the next line is a `;` missing
/// at the end of the line before: the diagnostic points there, with the fix.
fn missing_semicolons(diags: Vec<Diagnostic>, src: &str) -> Vec<Diagnostic> {
    diags
        .into_iter()
        .map(|diag| {
            let start = diag.span.start.min(src.len());
            if !diag.message.contains("`;`") || !src.is_char_boundary(start) {
                return diag;
            }
            let before = &src[..start];
            let end = before.trim_end().len();
            if end == 0 || !before[end..].contains('\n') {
                return diag;
            }
            let last = before[..end].chars().next_back().map_or(1, char::len_utf8);
            let line = before[..end].matches('\n').count() + 1;
            let mut fixed = Diagnostic::new(
                diag.stage,
                diag.code,
                format!("missing `;` at the end of line {line}"),
                syntax::span::Span::new(end - last, end),
            )
            .with_label("a `;` is missing after this")
            .with_secondary(diag.span, "the next statement starts here")
            .with_help(format!("end the statement on line {line} with `;`"));
            fixed.origin = diag.origin;
            fixed
        })
        .collect()
}

fn syntax_diagnostics(errors: &[SyntaxError]) -> Vec<Diagnostic> {
    errors.iter().map(syntax_diagnostic).collect()
}

fn whole_span(src: &str) -> Span {
    let start = src.len() - src.trim_start().len();
    Span::new(start, src.trim_end().len().max(start))
}

fn not_compact_diagnostic(src: &str, ty: &Type, what: &str) -> Diagnostic {
    Diagnostic::new(
        Stage::Static,
        "E0401",
        format!("`{ty}` is not compact linear, so it {what}"),
        whole_span(src),
    )
    .with_label(format!("kind {}", types::kind::kind_of(ty).name()))
    .with_help("compact linear types are unitsums and their `\\*`, `\\+` and `\\^` combinations")
}

/// Is the source only whitespace and (possibly nested) comments? An unterminated block
/// comment is not blank: the parser decides that the chunk is incomplete.
pub fn is_blank_source(src: &str) -> bool {
    let bytes = src.as_bytes();
    let mut position = 0;
    while position < bytes.len() {
        match bytes[position] {
            b' ' | b'\t' | b'\n' | b'\r' => position += 1,
            b'/' if bytes.get(position + 1) == Some(&b'/') => {
                while position < bytes.len() && bytes[position] != b'\n' {
                    position += 1;
                }
            }
            b'/' if bytes.get(position + 1) == Some(&b'*') => {
                let mut depth = 0usize;
                loop {
                    if position + 1 >= bytes.len() {
                        return false;
                    }
                    match (bytes[position], bytes[position + 1]) {
                        (b'/', b'*') => {
                            depth += 1;
                            position += 2;
                        }
                        (b'*', b'/') => {
                            depth -= 1;
                            position += 2;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => position += 1,
                    }
                }
            }
            _ => return false,
        }
    }
    true
}

/// The message and Rust location of the last panic, recorded by the hook of
/// `install_panic_hook` (a panic on a worker thread reaches the session thread through rayon).
static LAST_PANIC: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// Replace the default panic message (printed at the panic) by a record that
/// `catch_internal_error` turns into an internal-error report at the session boundary.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = if let Some(text) = info.payload().downcast_ref::<&str>() {
            text.to_string()
        } else if let Some(text) = info.payload().downcast_ref::<String>() {
            text.clone()
        } else {
            "unknown panic".to_string()
        };
        let location = info
            .location()
            .map(|at| format!(" (at {}:{})", at.file(), at.line()))
            .unwrap_or_default();
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = Some(format!("{message}{location}"));
        }
    }));
}

/// Run `f`; a panic in it (always a bug in Tessera) is caught and returned as its message.
pub fn catch_internal_error<R>(f: impl FnOnce() -> R) -> Result<R, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
        let recorded = LAST_PANIC.lock().ok().and_then(|mut last| last.take());
        recorded.unwrap_or_else(|| {
            payload
                .downcast_ref::<&str>()
                .map(|text| text.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string())
        })
    })
}

/// The stable code of an internal error (a caught panic; exit status 101 for a file).
pub const INTERNAL_ERROR: &str = "R0000";

/// The diagnostic for a caught panic while processing `src`.
pub fn internal_error_diagnostic(message: &str, src: &str) -> Diagnostic {
    Diagnostic::new(
        Stage::Runtime,
        INTERNAL_ERROR,
        format!("internal error (a bug in Tessera): {message}"),
        Span::new(0, src.len()),
    )
    .with_label("while processing this input")
    .with_help(
        "please report this with the input that caused it; the session goes on without the \
         definitions of this input",
    )
}

/// E0100 for the chunk `chunk` that the REPL's input ended inside of.
pub fn incomplete_input_diagnostic(chunk: &str) -> Diagnostic {
    let end = chunk.len();
    Diagnostic::new(
        Stage::Static,
        "E0100",
        "unexpected end of input: this chunk is incomplete",
        Span::new(end, end),
    )
    .with_label("the input ended here")
    .with_help("close every bracket and block (`done`, `endif`, `endmatch`, `}`)")
}

/// The stable code of a source file that is not UTF-8 text.
pub const NOT_UTF8: &str = "E0103";

/// E0103 at byte `at` of the (lossily decoded) source.
pub fn not_utf8_diagnostic(src: &str, at: usize) -> Diagnostic {
    let end = src[at..].chars().next().map_or(at, |c| at + c.len_utf8());
    Diagnostic::new(
        Stage::Static,
        NOT_UTF8,
        "the source is not valid UTF-8 text",
        Span::new(at, end),
    )
    .with_label("the first byte that is not UTF-8")
    .with_help("Tessera programs are UTF-8 text; re-encode the file")
}

#[cfg(test)]
mod prim_table_tests;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Origin;

    fn check_blank(src: &str, expected: bool) {
        assert_eq!(is_blank_source(src), expected, "is_blank_source({src:?})");
    }

    #[test]
    fn blank_sources() {
        check_blank("", true);
        check_blank("  \n\t\r\n", true);
        check_blank("// a comment\n", true);
        check_blank("// a comment", true);
        check_blank("/* a /* nested */ comment */\n// and a line\n", true);
        check_blank("/**/", true);
    }

    #[test]
    fn sources_that_are_not_blank() {
        check_blank("1 + 2", false);
        check_blank("// comment\nx", false);
        check_blank("/* unterminated", false);
        check_blank("/* a /* nested */ still open", false);
        check_blank("/", false);
        check_blank("/* c */ x", false);
    }

    #[test]
    fn whole_span_skips_surrounding_whitespace() {
        assert_eq!(whole_span("  int ^ 3 "), Span::new(2, 9));
        assert_eq!(whole_span("   "), Span::new(3, 3));
    }

    /// The one diagnostic of a chunk that failed.
    fn chunk_error(session: &mut Session, src: &str) -> Diagnostic {
        match session.eval_chunk(src) {
            ChunkResult::Failed(mut diags) if diags.len() == 1 => diags.remove(0),
            other => panic!("expected one error from {src:?}, got {other:?}"),
        }
    }

    #[test]
    fn a_global_of_a_failed_earlier_chunk_is_placed_in_that_chunk() {
        let mut session = Session::new(Settings::default().with_stdout(std::io::sink()));
        chunk_error(&mut session, "var z = 0;\nval x = 10 / z;\n");
        let diag = chunk_error(&mut session, "println$ x + 1;\n");
        assert_eq!(diag.code, "R0011");
        assert!(diag.secondary.is_empty(), "{diag:?}");
        assert!(
            diag.notes
                .iter()
                .any(|n| n.contains("`x` is defined here: <earlier input>:2:5")),
            "{diag:?}"
        );
        // Read and defined in the same chunk: a label of the chunk itself.
        let diag = chunk_error(&mut session, "fun g () => w;\nprintln$ g ();\nval w = 2;\n");
        assert_eq!(diag.secondary.len(), 1, "{diag:?}");
        assert_eq!(diag.secondary[0].0, Span::new(34, 35));
    }

    #[test]
    fn an_error_in_a_function_of_an_earlier_chunk_is_shown_in_that_chunk() {
        let mut session = Session::new(Settings::default().with_stdout(std::io::sink()));
        let first = "fun f (x:int) : int => 10 / x;\n";
        let second = "fun g (x:int) : int = { val y = x; return f y; }\n";
        assert!(matches!(session.eval_chunk(first), ChunkResult::Done));
        assert!(matches!(
            session.eval_chunk("val unrelated = 1;\n"),
            ChunkResult::Done
        ));
        assert!(matches!(session.eval_chunk(second), ChunkResult::Done));
        let diag = chunk_error(&mut session, "println$ g 0;\n");
        let Origin::Source(text) = &diag.origin else {
            panic!("the error is in the first chunk: {diag:?}");
        };
        assert_eq!(
            (text.text.as_str(), text.kind),
            (first, SourceKind::EarlierInput)
        );
        assert!(matches!(&diag.frames[0].call_origin, Origin::Source(t) if t.text == second));
        assert_eq!(diag.frames[1].call_origin, Origin::Here);
        let rendered = diag::render(&[diag], "<repl>", "println$ g 0;\n", false);
        assert!(rendered.contains("<earlier input>:1:24 ]"), "{rendered}");
        assert!(
            rendered.contains("in `f`, called at <earlier input>:1:43 (`f y`)"),
            "{rendered}"
        );
        assert!(
            rendered.contains("in `g`, called at <repl>:1:10"),
            "{rendered}"
        );
        // A function of the failing chunk itself is `Here`; the prelude is the library.
        let diag = chunk_error(
            &mut session,
            "fun h (x:int) : int => f x;\niter (proc (x:int) { println$ h x; }) (1, 0);\n",
        );
        assert_eq!(diag.frames.len(), 4);
        let functions: Vec<&str> = diag.frames.iter().map(|f| f.function.as_str()).collect();
        assert_eq!(functions, ["f", "h", "<lambda>", "iter"]);
        assert_eq!(diag.frames[0].call_origin, Origin::Here);
        assert_eq!(diag.frames[1].call_origin, Origin::Here);
        assert!(
            matches!(&diag.frames[2].call_origin, Origin::Source(t) if t.kind == SourceKind::Library),
            "{:?}",
            diag.frames[2]
        );
        assert_eq!(diag.frames[3].call_origin, Origin::Here);
    }

    #[test]
    fn a_loaded_file_is_named_in_the_stack() {
        let mut session = Session::new(Settings::default().with_stdout(std::io::sink()));
        session
            .run_file_source("fun f (x:int) : int => 10 / x;\n", "lib.flx")
            .expect("the file runs");
        let diag = chunk_error(&mut session, "f 0\n");
        let rendered = diag::render(&[diag], "<repl>", "f 0\n", false);
        assert!(rendered.contains("╭─[ lib.flx:1:24 ]"), "{rendered}");
        assert!(
            rendered.contains("in `f`, called at <repl>:1:1"),
            "{rendered}"
        );
    }

    /// The codes of a run's diagnostics (empty when it ran).
    fn codes(session: &mut Session, src: &str) -> Vec<&'static str> {
        match session.run_source(src) {
            Ok(()) => Vec::new(),
            Err(diags) => diags.iter().map(|d| d.code).collect(),
        }
    }

    #[test]
    fn two_sessions_side_by_side_keep_their_own_limits() {
        let low = limits::Limits {
            max_nesting: 8,
            max_call_depth: 50,
            max_errors: 1,
            ..limits::Limits::default()
        };
        let mut tight = Session::new(
            Settings::default()
                .with_stdout(std::io::sink())
                .with_limits(low),
        );
        let mut roomy = Session::new(Settings::default().with_stdout(std::io::sink()));
        let nested = format!("println$ {}1{};\n", "(".repeat(12), ")".repeat(12));
        assert_eq!(codes(&mut tight, &nested), ["E0102"]);
        assert_eq!(codes(&mut roomy, &nested), Vec::<&str>::new());
        let deep = "fun down (n:int) : int => if n == 0 then 0 else 1 + down (n - 1) endif;\n\
                    println$ down 100;\n";
        assert_eq!(codes(&mut tight, deep), ["R0008"]);
        assert_eq!(codes(&mut roomy, deep), Vec::<&str>::new());
        // Diagnostics render with each session's `max_errors`.
        let src = "println a;\nprintln b;\n";
        let diags = tight.check_source(src).expect_err("two errors");
        let shown = diag::render_with(&diags, "t.flx", src, &tight.render_options(false));
        assert!(shown.contains("… and 1 more error "), "{shown}");
        let shown = diag::render_with(&diags, "t.flx", src, &roomy.render_options(false));
        assert!(!shown.contains("more error"), "{shown}");
    }

    #[test]
    fn a_session_with_its_own_threads_gives_the_same_results() {
        let src = "var s = 0; for i in 0..<100000 do s = s + i % 3; done println s;\n";
        let mut results = Vec::new();
        for settings in [
            Settings::default(),
            Settings::default().with_threads(1),
            Settings::default().with_threads(2),
        ] {
            let out = SharedBuffer::default();
            let mut session = Session::new(settings.with_stdout(out.clone()));
            session.run_source(src).expect("the program runs");
            session.flush();
            results.push(out.text());
        }
        assert_eq!(results[0], "99999\n");
        assert!(results.iter().all(|r| *r == results[0]), "{results:?}");
        let session = Session::new(Settings::default().with_threads(2));
        assert_eq!(session.threads(), 2);
    }

    #[test]
    fn a_panic_is_caught_as_an_internal_error_with_its_message() {
        let caught = catch_internal_error(|| -> i32 { panic!("boom {}", 42) });
        let message = caught.expect_err("the panic is caught");
        assert!(message.contains("boom 42"), "{message}");
        let diag = internal_error_diagnostic(&message, "println 1;");
        assert_eq!(diag.code, INTERNAL_ERROR);
        assert_eq!(diag.span, Span::new(0, 10));
        assert_eq!(catch_internal_error(|| 7), Ok(7));
    }
}
