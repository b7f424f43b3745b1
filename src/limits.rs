//! The resource limits of one interpreter process (issue 9: never crash, never hang).
//!
//! Each limit has a documented default (`book/src/12-errors.md`) and a command-line flag to raise
//! or lower it. They are process-wide settings, read where the limited resource is used: the
//! parser's nesting depth, the evaluator's allocations and call depth, the renderer's number
//! of diagnostics and line width, and the printer's type width. The CLI sets them once, before
//! any session starts; everything else only reads them.

use std::sync::atomic::{AtomicU64, Ordering};

/// Expressions, types, patterns and statements nested deeper than this are static error
/// E0102 (`--max-nesting`).
pub const DEFAULT_MAX_NESTING: u64 = 256;

/// A single allocation (an array's leaves, a string, a natural's digits) larger than this
/// many bytes is runtime error R0007 (`--max-alloc`).
pub const DEFAULT_MAX_ALLOC_BYTES: u64 = 4 << 30;

/// A natural number with more than this many bits is runtime error R0007
/// (`--max-natural-bits`): arithmetic on naturals costs more than linear time in their size,
/// so they get a tighter bound than other allocations.
pub const DEFAULT_MAX_NATURAL_BITS: u64 = 1 << 24;

/// Calls nested deeper than this are runtime error R0008 (`--max-call-depth`).
pub const DEFAULT_MAX_CALL_DEPTH: u64 = 100_000;

/// At most this many diagnostics are printed for one file or chunk, then a count of the
/// rest (`--max-errors`).
pub const DEFAULT_MAX_ERRORS: u64 = 20;

/// A source line echoed under a diagnostic is cut to about this many characters around the
/// span (`--max-line-width`).
pub const DEFAULT_MAX_LINE_WIDTH: u64 = 160;

/// A type printed in a message or a REPL answer is cut to about this many characters, the
/// rest elided as `…` (`--max-type-width`).
pub const DEFAULT_MAX_TYPE_WIDTH: u64 = 2000;

/// `--threads` accepts at most this many worker threads per core.
pub const MAX_THREADS_PER_CORE: usize = 4;

static MAX_NESTING: AtomicU64 = AtomicU64::new(DEFAULT_MAX_NESTING);
static MAX_ALLOC_BYTES: AtomicU64 = AtomicU64::new(DEFAULT_MAX_ALLOC_BYTES);
static MAX_NATURAL_BITS: AtomicU64 = AtomicU64::new(DEFAULT_MAX_NATURAL_BITS);
static MAX_CALL_DEPTH: AtomicU64 = AtomicU64::new(DEFAULT_MAX_CALL_DEPTH);
static MAX_ERRORS: AtomicU64 = AtomicU64::new(DEFAULT_MAX_ERRORS);
static MAX_LINE_WIDTH: AtomicU64 = AtomicU64::new(DEFAULT_MAX_LINE_WIDTH);
static MAX_TYPE_WIDTH: AtomicU64 = AtomicU64::new(DEFAULT_MAX_TYPE_WIDTH);

/// One adjustable limit: its flag, what it bounds, and its storage.
pub struct Limit {
    pub flag: &'static str,
    pub meaning: &'static str,
    pub default: u64,
    /// The smallest accepted value.
    pub minimum: u64,
    cell: &'static AtomicU64,
}

impl Limit {
    pub fn get(&self) -> u64 {
        self.cell.load(Ordering::Relaxed)
    }

    pub fn set(&self, value: u64) {
        self.cell.store(value, Ordering::Relaxed)
    }
}

/// Every limit with a flag, in the order `--help` lists them.
pub static LIMITS: [Limit; 7] = [
    Limit {
        flag: "--max-nesting",
        meaning: "nesting depth of expressions, types, patterns and blocks (E0102)",
        default: DEFAULT_MAX_NESTING,
        minimum: 8,
        cell: &MAX_NESTING,
    },
    Limit {
        flag: "--max-alloc",
        meaning: "bytes of one array, string or tuple allocation (R0007)",
        default: DEFAULT_MAX_ALLOC_BYTES,
        minimum: 1024,
        cell: &MAX_ALLOC_BYTES,
    },
    Limit {
        flag: "--max-natural-bits",
        meaning: "bits of one natural number (R0007)",
        default: DEFAULT_MAX_NATURAL_BITS,
        minimum: 64,
        cell: &MAX_NATURAL_BITS,
    },
    Limit {
        flag: "--max-call-depth",
        meaning: "depth of nested calls (R0008)",
        default: DEFAULT_MAX_CALL_DEPTH,
        minimum: 16,
        cell: &MAX_CALL_DEPTH,
    },
    Limit {
        flag: "--max-errors",
        meaning: "diagnostics printed for one file or chunk, then a count",
        default: DEFAULT_MAX_ERRORS,
        minimum: 1,
        cell: &MAX_ERRORS,
    },
    Limit {
        flag: "--max-line-width",
        meaning: "characters of a source line shown under a diagnostic",
        default: DEFAULT_MAX_LINE_WIDTH,
        minimum: 20,
        cell: &MAX_LINE_WIDTH,
    },
    Limit {
        flag: "--max-type-width",
        meaning: "characters of a printed type before the rest is elided",
        default: DEFAULT_MAX_TYPE_WIDTH,
        minimum: 20,
        cell: &MAX_TYPE_WIDTH,
    },
];

/// The limit set by `flag` (`--max-nesting`, …).
pub fn by_flag(flag: &str) -> Option<&'static Limit> {
    LIMITS.iter().find(|limit| limit.flag == flag)
}

fn read(cell: &AtomicU64) -> u64 {
    cell.load(Ordering::Relaxed)
}

fn as_usize(value: u64) -> usize {
    usize::try_from(value).unwrap_or(usize::MAX)
}

pub fn max_nesting() -> usize {
    as_usize(read(&MAX_NESTING))
}

pub fn max_alloc_bytes() -> usize {
    as_usize(read(&MAX_ALLOC_BYTES))
}

pub fn max_natural_bits() -> u64 {
    read(&MAX_NATURAL_BITS)
}

pub fn max_call_depth() -> u64 {
    read(&MAX_CALL_DEPTH)
}

pub fn max_errors() -> usize {
    as_usize(read(&MAX_ERRORS))
}

pub fn max_line_width() -> usize {
    as_usize(read(&MAX_LINE_WIDTH))
}

pub fn max_type_width() -> usize {
    as_usize(read(&MAX_TYPE_WIDTH))
}

/// The largest `--threads` value accepted on this machine.
pub fn max_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    cores * MAX_THREADS_PER_CORE
}

/// Why an allocation was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// Larger than `--max-alloc` (the limit, in bytes).
    OverLimit(u64),
    /// Within the limit, but the system could not provide it.
    Unavailable,
}

impl Refusal {
    /// The end of an R0007 message: why `bytes` bytes could not be had.
    pub fn describe(self, bytes: u128) -> String {
        match self {
            Refusal::OverLimit(limit) => format!(
                "{bytes} bytes are more than the limit of {limit} bytes for one allocation \
                 (raise it with `--max-alloc`)"
            ),
            Refusal::Unavailable => format!("{bytes} bytes could not be allocated"),
        }
    }
}

/// Is an allocation of `bytes` bytes possible: within `--max-alloc`, and granted by the
/// system when tried (the probe is released at once; large allocations are mapped lazily, so
/// this costs no page touches)? Called before building a large string, natural or array, so
/// that running out of memory is runtime error R0007, never an allocator abort.
pub fn check_allocation(bytes: u128) -> Result<(), Refusal> {
    let limit = read(&MAX_ALLOC_BYTES);
    if bytes > u128::from(limit) {
        return Err(Refusal::OverLimit(limit));
    }
    // Small allocations are not worth a probe.
    if bytes >= 1 << 20 {
        let mut probe: Vec<u8> = Vec::new();
        probe
            .try_reserve_exact(bytes as usize)
            .map_err(|_| Refusal::Unavailable)?;
    }
    Ok(())
}
