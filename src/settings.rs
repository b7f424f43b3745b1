//! The settings of one session: its limits, whether the IR is validated, whether calls are
//! inlined, its worker threads, where the program's output goes, and the program's
//! command-line arguments and standard input.
//!
//! Every setting belongs to the session given it (`Session::new`); nothing is process-wide,
//! so two sessions in one process may run with different settings, side by side.

use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};

use crate::limits::Limits;

/// How a session runs. `Settings::default()` has the documented defaults; the fields are
/// public, and the `with_…` methods set one and give the settings back:
///
/// ```
/// use tessera::{Session, Settings};
///
/// let mut settings = Settings::default().with_stdout(std::io::sink()).with_inline(false);
/// settings.limits.max_call_depth = 2000;
/// let mut session = Session::new(settings);
/// session.run_source("println 1;").unwrap();
/// ```
pub struct Settings {
    /// The resource limits (nesting, allocations, call depth, diagnostics and widths).
    pub limits: Limits,
    /// Check the typed IR of every unit against the primitive table before it runs, in
    /// release builds too (`--validate`; debug builds always do). A violation is an internal
    /// error.
    pub validate: bool,
    /// Inline calls of known functions (the default). Off (`--no-inline`), every call is made
    /// as written; results are the same either way.
    pub inline: bool,
    /// Compile to native code (the default). Off (`--no-jit`), everything runs on the
    /// closure compiler; results, output and diagnostics are the same either way.
    pub jit: bool,
    /// With native code on, compile the statements of a top level that have no loop (each
    /// runs once), and the cheap functions only they call, to native code too
    /// (`--jit-all`). Off (the default), they run on the closure compiler, which prepares a
    /// statement in a small part of the time Cranelift takes to compile it; loops and the
    /// other functions are native code either way, and results are the same either way.
    pub jit_all: bool,
    /// The worker threads of parallel loops: `None` uses rayon's global pool (one thread per
    /// core, or `RAYON_NUM_THREADS`); `Some(n)` gives the session a pool of its own with `n`
    /// threads (`--threads N`). Results never depend on it.
    pub threads: Option<usize>,
    /// The program's standard output, which also receives REPL answers (the process's
    /// stdout by default).
    pub stdout: Box<dyn Write + Send>,
    /// The program's standard error (`eprint`, `cstderr`); discarded by default (the CLI gives
    /// the process's stderr).
    pub stderr: Box<dyn Write + Send>,
    /// The program's standard input (`cstdin`); empty by default (the CLI gives the process's
    /// stdin when it runs a file).
    pub stdin: Box<dyn BufRead + Send>,
    /// The program's command-line arguments, its path first (`System::argv 0`); none by
    /// default.
    pub args: Vec<String>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            limits: Limits::default(),
            validate: false,
            inline: true,
            jit: true,
            jit_all: false,
            threads: None,
            stdout: Box::new(std::io::stdout()),
            stderr: Box::new(std::io::sink()),
            stdin: Box::new(std::io::empty()),
            args: Vec::new(),
        }
    }
}

impl Settings {
    /// These settings with program output going to `out`.
    #[must_use]
    pub fn with_stdout(self, out: impl Write + Send + 'static) -> Settings {
        Settings {
            stdout: Box::new(out),
            ..self
        }
    }

    /// These settings with the program's standard error going to `err`.
    #[must_use]
    pub fn with_stderr(self, err: impl Write + Send + 'static) -> Settings {
        Settings {
            stderr: Box::new(err),
            ..self
        }
    }

    /// These settings with the program's standard input read from `stdin`.
    #[must_use]
    pub fn with_stdin(self, stdin: impl BufRead + Send + 'static) -> Settings {
        Settings {
            stdin: Box::new(stdin),
            ..self
        }
    }

    /// These settings with the program's arguments, its path first.
    #[must_use]
    pub fn with_args(self, args: Vec<String>) -> Settings {
        Settings { args, ..self }
    }

    /// These settings with `limits`.
    #[must_use]
    pub fn with_limits(self, limits: Limits) -> Settings {
        Settings { limits, ..self }
    }

    /// These settings with the IR validator on or off in release builds.
    #[must_use]
    pub fn with_validate(self, validate: bool) -> Settings {
        Settings { validate, ..self }
    }

    /// These settings with inlining on or off.
    #[must_use]
    pub fn with_inline(self, inline: bool) -> Settings {
        Settings { inline, ..self }
    }

    /// These settings with native code on or off.
    #[must_use]
    pub fn with_jit(self, jit: bool) -> Settings {
        Settings { jit, ..self }
    }

    /// These settings with the top level's statements that run once compiled to native code
    /// too, or not (`Settings::jit_all`).
    #[must_use]
    pub fn with_jit_all(self, jit_all: bool) -> Settings {
        Settings { jit_all, ..self }
    }

    /// These settings with a pool of `threads` worker threads for the session.
    #[must_use]
    pub fn with_threads(self, threads: usize) -> Settings {
        Settings {
            threads: Some(threads),
            ..self
        }
    }
}

/// The stack of each thread of a session's pool, which runs the parser, the checker and the
/// evaluator (as large as the interpreter thread's in `main.rs`: address space, committed
/// only as it is used).
pub const POOL_STACK_BYTES: usize = 256 << 20;

/// A pool of `threads` worker threads for one session. When the system refuses them, the
/// session's parallel loops stay on the global pool (a change of speed, never of results).
pub fn thread_pool(threads: usize) -> Result<rayon::ThreadPool, rayon::ThreadPoolBuildError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .stack_size(POOL_STACK_BYTES)
        .build()
}

/// A writer whose bytes stay readable after the session that owns it is gone.
#[derive(Clone, Default)]
pub struct SharedBuffer(Arc<Mutex<Vec<u8>>>);

impl SharedBuffer {
    /// What was written so far (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        match self.0.lock() {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(poisoned) => String::from_utf8_lossy(&poisoned.into_inner()).into_owned(),
        }
    }

    /// Forget what was written so far.
    pub fn clear(&self) {
        if let Ok(mut bytes) = self.0.lock() {
            bytes.clear();
        }
    }
}

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
