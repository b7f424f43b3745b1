//! The memory budget (`--max-memory`): the process's heap, counted by its global allocator.
//!
//! Every heap allocation of the process goes through `Counting`, which keeps the number of
//! live bytes. The budget is enforced two ways:
//! - **Before** an allocation whose size the program decides (an array's leaves, a string, a
//!   natural, a kernel's output): `admit` refuses it when the live bytes plus the request
//!   would pass the budget, and the caller reports R0007 at the span that asked, having
//!   allocated nothing.
//! - **After** growth in many small steps (a list of a million variant nodes, a map of
//!   closures): an allocation that takes the live bytes past the budget is still served, but
//!   it raises the Ctrl-C flag (`interrupt`) with the reason "over budget". The evaluator
//!   polls that flag at every loop back-edge, call and every few thousand kernel elements,
//!   natively and on closures alike, and the poll reports R0007 instead of R0012 (see
//!   `eval::error::interrupted`).
//!
//! An allocator may not unwind or refuse selectively (an infallible `Vec` aborts on a
//! refusal), so the allocator never refuses on the budget's account: refusals happen only in
//! `admit`, where the caller can turn them into an error.
//!
//! The counter and the budget belong to the process: several sessions in one process share
//! them, and the budget is the one the last session created set.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Bytes allocated and not yet freed.
static LIVE: AtomicUsize = AtomicUsize::new(0);
/// The budget in bytes (`usize::MAX` until a session sets one).
static BUDGET: AtomicUsize = AtomicUsize::new(usize::MAX);
/// Set when an allocation took the live bytes past the budget; cleared with the Ctrl-C flag.
static OVER_BUDGET: AtomicBool = AtomicBool::new(false);

/// The system allocator, counting live bytes.
pub struct Counting;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

impl Counting {
    #[inline]
    fn grew(&self, bytes: usize) {
        let live = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
        if live > BUDGET.load(Ordering::Relaxed) {
            over_budget();
        }
    }

    #[inline]
    fn shrank(&self, bytes: usize) {
        LIVE.fetch_sub(bytes, Ordering::Relaxed);
    }
}

#[cold]
fn over_budget() {
    if !OVER_BUDGET.swap(true, Ordering::Relaxed) {
        crate::interrupt::request();
    }
}

// SAFETY: every method forwards to `System` with the same arguments; the counting only
// touches atomics and never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            self.grew(layout.size());
        }
        pointer
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let pointer = unsafe { System.alloc_zeroed(layout) };
        if !pointer.is_null() {
            self.grew(layout.size());
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        unsafe { System.dealloc(pointer, layout) };
        self.shrank(layout.size());
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let moved = unsafe { System.realloc(pointer, layout, new_size) };
        if !moved.is_null() {
            let old = layout.size();
            if new_size >= old {
                self.grew(new_size - old);
            } else {
                self.shrank(old - new_size);
            }
        }
        moved
    }
}

/// Bytes of heap live now.
pub fn live_bytes() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// The budget in bytes.
pub(crate) fn budget() -> u64 {
    BUDGET.load(Ordering::Relaxed) as u64
}

/// Set the budget (done by `Session::new` from `--max-memory`).
pub(crate) fn set_budget(bytes: u64) {
    BUDGET.store(
        usize::try_from(bytes).unwrap_or(usize::MAX),
        Ordering::Relaxed,
    );
}

/// May `bytes` more bytes be allocated within the budget? `Err` carries the budget.
pub(crate) fn admit(bytes: u128) -> Result<(), u64> {
    let budget = BUDGET.load(Ordering::Relaxed);
    if live_bytes() as u128 + bytes > budget as u128 {
        return Err(budget as u64);
    }
    Ok(())
}

/// Did an allocation pass the budget since the flag was last cleared?
pub(crate) fn over() -> bool {
    OVER_BUDGET.load(Ordering::Relaxed)
}

/// Forget an earlier overrun (before a REPL chunk, with the Ctrl-C flag). If the live bytes
/// are still over the budget, the next allocation raises it again.
pub(crate) fn clear() {
    OVER_BUDGET.store(false, Ordering::Relaxed);
}

/// Half the machine's physical memory, and at most an eighth of the address-space limit
/// (`RLIMIT_AS`) when one is set. The address space counts what is reserved, not what is
/// used: the native stack segments (up to `--max-stack`), each thread's stack and malloc
/// arena, the compiled code, and a value being rebuilt (a string doubled, an array copied on
/// write) while the old one is alive. An eighth also keeps the process's pages within what such
/// a limit usually means: under `prlimit --as=8GiB` a program stops with R0007 at 1 GiB of
/// heap, in about a second, instead of faulting in 4 GiB of pages first.
pub fn default_budget() -> u64 {
    // SAFETY: `sysconf` and `getrlimit` only read system values into plain integers.
    let (pages, page_size, address_space) = unsafe {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        let address_space = if libc::getrlimit(libc::RLIMIT_AS, &mut limit) == 0
            && limit.rlim_cur != libc::RLIM_INFINITY
        {
            Some(limit.rlim_cur)
        } else {
            None
        };
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
            address_space,
        )
    };
    let physical = if pages > 0 && page_size > 0 {
        (pages as u64).saturating_mul(page_size as u64)
    } else {
        8 << 30
    };
    let mut budget = physical / 2;
    if let Some(address_space) = address_space {
        budget = budget.min(address_space / 8);
    }
    budget
}

/// Serve every thread from the process's main malloc arena. Without it the session thread
/// gets an arena of its own, which glibc grows one page (one `mprotect`) at a time: loading
/// the library alone made several hundred such calls. The main arena grows by `brk` with
/// room to spare. Threads of a parallel loop share it too;
/// each keeps a cache of small freed blocks, so they rarely wait on its lock.
pub fn use_one_arena() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `mallopt` only sets a malloc parameter; it is called before any thread starts.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
    }
}
