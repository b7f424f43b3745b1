//! The resource limits of a session: never crash, never hang.
//!
//! Each limit has a documented default (`book/src/12-errors.md`) and a command-line flag to raise
//! or lower it. A session's limits are a `Limits` value in its `Settings`; each reaches the code
//! that enforces it through the values that already travel there: the parse options (nesting
//! depth), the evaluator's runtime (allocations, natural numbers, call depth), the render
//! options (diagnostics shown, line width) and the type printer's scope (type width).

/// Expressions, types, patterns and statements nested deeper than this are static error
/// E0102 (`--max-nesting`).
pub const DEFAULT_MAX_NESTING: u64 = 256;

/// A single allocation (an array's leaves, a string, a natural's digits) larger than this
/// many bytes is runtime error R0007 (`--max-alloc`).
pub const DEFAULT_MAX_ALLOC_BYTES: u64 = 4 << 30;

/// A natural number with more than this many bits is runtime error R0007
/// (`--max-natural-bits`). The bound is on time more than on memory: division and the
/// conversion to decimal take quadratic time in the size (num-bigint's, and the subquadratic
/// conversion of `dashu-int` measured no faster at this size), so the bound keeps any one
/// operation on naturals to a fraction of a second: at 2^22 bits (1.26 million decimal digits)
/// a conversion takes about 0.2 s, at 2^24 bits it took 3 s.
pub const DEFAULT_MAX_NATURAL_BITS: u64 = 1 << 22;

/// The heap of the process may hold at most this many bytes (`--max-memory`; its default,
/// computed at start, is `memory::default_budget`: half the physical memory, at most an eighth of the
/// address-space limit). Past it, the allocation that asked is runtime error R0007.
pub fn default_max_memory() -> u64 {
    crate::memory::default_budget()
}

/// Calls nested deeper than this are runtime error R0008 (`--max-call-depth`).
pub const DEFAULT_MAX_CALL_DEPTH: u64 = 100_000;

/// The native stack that nested calls may take, in bytes (`--max-stack`): past it a call is
/// runtime error R0008, whatever `--max-call-depth` allows. A call takes about 1 KiB, so the
/// default depth fits five times over; the stack is allocated in segments as calls nest.
pub const DEFAULT_MAX_STACK_BYTES: u64 = 512 << 20;

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

/// The resource limits of one session. `Limits::default()` has the documented defaults.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Nesting depth of expressions, types, patterns and blocks (E0102, `--max-nesting`).
    pub max_nesting: u64,
    /// Bytes of one array, string or natural allocation (R0007, `--max-alloc`).
    pub max_alloc_bytes: u64,
    /// Bits of one natural number (R0007, `--max-natural-bits`).
    pub max_natural_bits: u64,
    /// Bytes of heap the whole process may hold (R0007, `--max-memory`).
    pub max_memory_bytes: u64,
    /// Depth of nested calls (R0008, `--max-call-depth`).
    pub max_call_depth: u64,
    /// Bytes of native stack for nested calls (R0008, `--max-stack`).
    pub max_stack_bytes: u64,
    /// Diagnostics rendered for one file or chunk before a count of the rest (`--max-errors`).
    pub max_errors: u64,
    /// Characters of a source line shown under a diagnostic (`--max-line-width`).
    pub max_line_width: u64,
    /// Characters of a printed type before the rest is elided (`--max-type-width`).
    pub max_type_width: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_nesting: DEFAULT_MAX_NESTING,
            max_alloc_bytes: DEFAULT_MAX_ALLOC_BYTES,
            max_natural_bits: DEFAULT_MAX_NATURAL_BITS,
            max_memory_bytes: default_max_memory(),
            max_call_depth: DEFAULT_MAX_CALL_DEPTH,
            max_stack_bytes: DEFAULT_MAX_STACK_BYTES,
            max_errors: DEFAULT_MAX_ERRORS,
            max_line_width: DEFAULT_MAX_LINE_WIDTH,
            max_type_width: DEFAULT_MAX_TYPE_WIDTH,
        }
    }
}

/// One adjustable limit: its flag, what it bounds, and which field of `Limits` holds it.
pub struct Limit {
    /// The command-line flag (`--max-nesting`).
    pub flag: &'static str,
    /// What it bounds, for `--help`.
    pub meaning: &'static str,
    /// The value when no flag sets it (0: computed from the machine at start).
    pub default: u64,
    /// The smallest accepted value.
    pub minimum: u64,
    field: fn(&mut Limits) -> &mut u64,
}

impl Limit {
    /// This limit's value in `limits`.
    pub fn get(&self, limits: &Limits) -> u64 {
        let mut copy = *limits;
        *(self.field)(&mut copy)
    }

    /// Set this limit in `limits`.
    pub fn set(&self, limits: &mut Limits, value: u64) {
        *(self.field)(limits) = value;
    }
}

/// Every limit with a flag, in the order `--help` lists them.
pub static LIMITS: [Limit; 9] = [
    Limit {
        flag: "--max-nesting",
        meaning: "nesting depth of expressions, types, patterns and blocks (E0102)",
        default: DEFAULT_MAX_NESTING,
        minimum: 8,
        field: |limits| &mut limits.max_nesting,
    },
    Limit {
        flag: "--max-alloc",
        meaning: "bytes of one array, string or tuple allocation (R0007)",
        default: DEFAULT_MAX_ALLOC_BYTES,
        minimum: 1024,
        field: |limits| &mut limits.max_alloc_bytes,
    },
    Limit {
        flag: "--max-natural-bits",
        meaning: "bits of one natural number (R0007)",
        default: DEFAULT_MAX_NATURAL_BITS,
        minimum: 64,
        field: |limits| &mut limits.max_natural_bits,
    },
    Limit {
        flag: "--max-memory",
        meaning: "bytes of heap the process may hold (R0007)",
        default: 0,
        minimum: 16 << 20,
        field: |limits| &mut limits.max_memory_bytes,
    },
    Limit {
        flag: "--max-call-depth",
        meaning: "depth of nested calls (R0008)",
        default: DEFAULT_MAX_CALL_DEPTH,
        minimum: 16,
        field: |limits| &mut limits.max_call_depth,
    },
    Limit {
        flag: "--max-stack",
        meaning: "bytes of native stack for nested calls (R0008)",
        default: DEFAULT_MAX_STACK_BYTES,
        minimum: 16 << 20,
        field: |limits| &mut limits.max_stack_bytes,
    },
    Limit {
        flag: "--max-errors",
        meaning: "diagnostics printed for one file or chunk, then a count",
        default: DEFAULT_MAX_ERRORS,
        minimum: 1,
        field: |limits| &mut limits.max_errors,
    },
    Limit {
        flag: "--max-line-width",
        meaning: "characters of a source line shown under a diagnostic",
        default: DEFAULT_MAX_LINE_WIDTH,
        minimum: 20,
        field: |limits| &mut limits.max_line_width,
    },
    Limit {
        flag: "--max-type-width",
        meaning: "characters of a printed type before the rest is elided",
        default: DEFAULT_MAX_TYPE_WIDTH,
        minimum: 20,
        field: |limits| &mut limits.max_type_width,
    },
];

/// The limit set by `flag` (`--max-nesting`, …).
pub fn by_flag(flag: &str) -> Option<&'static Limit> {
    LIMITS.iter().find(|limit| limit.flag == flag)
}

/// A limit as a count of things in memory (saturating on 32-bit targets).
pub(crate) fn as_usize(value: u64) -> usize {
    usize::try_from(value).unwrap_or(usize::MAX)
}

/// The largest `--threads` value accepted on this machine.
pub fn max_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    cores * MAX_THREADS_PER_CORE
}

/// Why an allocation was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Larger than `--max-alloc` (the limit, in bytes).
    OverLimit(u64),
    /// Within the limit, but the heap would pass the memory budget (the budget, in bytes).
    OverBudget(u64),
    /// Within the limit and the budget, but the system could not provide it.
    Unavailable,
}

impl Refusal {
    /// The end of an R0007 message: why `bytes` bytes could not be had.
    pub(crate) fn describe(self, bytes: u128) -> String {
        match self {
            Refusal::OverLimit(limit) => format!(
                "{bytes} bytes are more than the limit of {limit} bytes for one allocation \
                 (raise it with `--max-alloc`)"
            ),
            Refusal::OverBudget(budget) => format!(
                "{bytes} more bytes would take the program past its memory budget of {budget} \
                 bytes (raise it with `--max-memory`)"
            ),
            Refusal::Unavailable => format!("{bytes} bytes could not be allocated"),
        }
    }
}

impl Limits {
    /// Is an allocation of `bytes` bytes within `max_alloc_bytes` and the memory budget
    /// (`memory::admit`)? For a caller that then allocates fallibly (`try_reserve`), which
    /// asks the system itself: `check_allocation` without the probe.
    pub(crate) fn admit(&self, bytes: u128) -> Result<(), Refusal> {
        let limit = self.max_alloc_bytes;
        if bytes > u128::from(limit) {
            return Err(Refusal::OverLimit(limit));
        }
        crate::memory::admit(bytes).map_err(Refusal::OverBudget)
    }

    /// Is an allocation of `bytes` bytes possible: within `max_alloc_bytes` and the memory
    /// budget (`memory::admit`), and granted by
    /// the system when tried (the probe is released at once; large allocations are mapped
    /// lazily, so this costs no page touches)? Called before building a large string, natural
    /// or array, so that running out of memory is runtime error R0007, never an allocator
    /// abort.
    pub(crate) fn check_allocation(&self, bytes: u128) -> Result<(), Refusal> {
        self.admit(bytes)?;
        // Small allocations are not worth a probe.
        if bytes >= 1 << 20 {
            let mut probe: Vec<u8> = Vec::new();
            probe
                .try_reserve_exact(bytes as usize)
                .map_err(|_| Refusal::Unavailable)?;
        }
        Ok(())
    }
}
