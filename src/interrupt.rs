//! Ctrl-C (SIGINT) during evaluation: one process-wide flag, set by the signal handler and
//! polled by the evaluator at loop back-edges, function entry and between chunk kernels (a
//! relaxed load). A poll that finds it set stops evaluation with runtime error R0012
//! "Interrupted."; the REPL keeps its session, `tessera FILE` exits with status 130.

use std::sync::atomic::{AtomicBool, Ordering};

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

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
pub fn requested() -> bool {
    INTERRUPTED.load(Ordering::Relaxed)
}

/// Forget an earlier Ctrl-C (before a REPL chunk starts, or after one was reported).
pub fn clear() {
    INTERRUPTED.store(false, Ordering::Relaxed);
}

/// Ask for an interruption as if Ctrl-C had been pressed (for tests).
pub fn request() {
    INTERRUPTED.store(true, Ordering::Relaxed);
}
