//! Ctrl-C (SIGINT) during evaluation: one process-wide flag, set by the signal handler and
//! polled by the evaluator at loop back-edges (native code skips those of a counting loop of
//! a few thousand iterations over a body with no loop and no call), function entry, between
//! the chunks of parallel loops and inside long built-in kernels (`sort`, `\sum`, `\prod`,
//! also on rayon workers) every `POLL_INTERVAL` elements or so, a few milliseconds of work (a
//! relaxed load). A poll that finds it set stops evaluation with runtime error R0012 "Interrupted.";
//! the REPL keeps its session, `tessera FILE` exits with status 130.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Elements a long built-in kernel processes between two polls of the flag: a few
/// milliseconds of work at most, a negligible cost per element.
pub(crate) const POLL_INTERVAL: usize = 1 << 16;

extern "C" fn on_sigint(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::Relaxed);
}

/// Make SIGINT set the flag instead of killing the process.
pub fn install_handler() {
    let handler = on_sigint as extern "C" fn(libc::c_int) as libc::sighandler_t;
    // SAFETY: the handler only stores to an atomic, which is async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, handler);
    }
}

/// Has Ctrl-C been pressed since the last `clear`?
#[inline(always)]
pub(crate) fn requested() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// The address of the flag (a byte, non-zero when set), which native code polls.
pub(crate) fn flag_address() -> *const u8 {
    INTERRUPTED.as_ptr() as *const u8
}

/// Forget an earlier Ctrl-C (before a REPL chunk starts, or after one was reported).
pub fn clear() {
    INTERRUPTED.store(false, Ordering::Relaxed);
}

/// Ask for an interruption as if Ctrl-C had been pressed (for tests).
pub fn request() {
    INTERRUPTED.store(true, Ordering::Relaxed);
}

/// Kernel polls left before `request_at_kernel_poll` raises the flag (0: not armed).
static KERNEL_COUNTDOWN: AtomicU64 = AtomicU64::new(0);

/// The poll of a long built-in kernel, made every `POLL_INTERVAL` elements or so: has Ctrl-C
/// been pressed? (Also counts down `request_at_kernel_poll`.)
#[inline]
pub(crate) fn kernel_poll() -> bool {
    if KERNEL_COUNTDOWN.load(Ordering::Relaxed) != 0 {
        count_down();
    }
    requested()
}

#[cold]
fn count_down() {
    let last =
        KERNEL_COUNTDOWN.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
    if last == Ok(1) {
        request();
    }
}

/// Ask for an interruption at the `n`-th kernel poll from now, as if Ctrl-C were pressed while
/// a long kernel runs (for tests: deterministic, unlike a timer; 0 disarms).
pub fn request_at_kernel_poll(n: u64) {
    KERNEL_COUNTDOWN.store(n, Ordering::Relaxed);
}
