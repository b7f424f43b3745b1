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
//!
//! Under the counting sits mimalloc, which serves each size of block from pages of its own:
//! the nodes of a tree or list a program builds lie in the order they were made, not in the
//! holes that checking and compiling left, so a walk over them reads memory in the order it
//! lies.
//! Blocks of `LARGE` bytes and more (arrays, long strings) go to the C library's malloc, which
//! maps each from the system (and keeps a freed one for the next request of its size): an
//! array's pages cost nothing until written (a million zeros left unwritten take no memory)
//! and go back to the system when it is freed. A block of `HUGE` bytes and more is a mapping
//! of its own (`mapped`), advised to the kernel as a whole for transparent huge pages: its
//! first writes then take one fault per 2 MiB instead of one per 4 KiB (filling a new array of
//! 80 MB took 20 000 faults, each as long as writing its page), while the small blocks of
//! checking, compiling and the program's nodes stay in 4 KiB pages (`set_memory_policy`). Such
//! a block grows (a darray pushed onto, a string appended to) by remapping: its pages are
//! moved, neither copied nor written again. (Advising part of a mapping splits it, and the
//! kernel then refuses to remap it: a darray grown to 16 MB in the C library's blocks, advised
//! so, was copied at each doubling past 4 MB.)

use mimalloc::MiMalloc as Backing;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Bytes allocated and not yet freed.
static LIVE: AtomicUsize = AtomicUsize::new(0);
/// The budget in bytes (`usize::MAX` until a session sets one).
static BUDGET: AtomicUsize = AtomicUsize::new(usize::MAX);
/// Set when an allocation took the live bytes past the budget; cleared with the Ctrl-C flag.
static OVER_BUDGET: AtomicBool = AtomicBool::new(false);

/// mimalloc, counting live bytes, with a cache of small freed blocks on the threads that ask
/// for one (`cache_small_blocks`).
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

/// Small blocks (a variant node, a list cell, a short tuple or string) are served by size
/// class: a request of at most `SMALL` bytes, aligned to at most 16, gets a block of its
/// class's size, a multiple of 16 and 16-aligned. The classes are sizes of mimalloc's own
/// (its bins of 16 to 128 bytes), so rounding a request up to its class costs no memory
/// mimalloc would not spend, and mimalloc serves the alignment from the bin itself.
///
/// The session thread keeps the small blocks it frees in a free list per class, up to
/// `CACHED` bytes in all (and an eighth of the budget), and serves its next requests of the
/// same class from them: a push or a pop, where a block from mimalloc also pays the live
/// count's two atomic operations. A cached block stays counted as live (it is the process's
/// heap), so a hit touches no atomic counter: a list of 200 000 cells dropped and built
/// again takes its cells from the lists. Every small block, on every thread, is allocated at
/// its class's size, so any of them may join any cache.
const SMALL: usize = 128;
const CLASSES: usize = 8;
const CACHED: usize = 64 << 20;

/// The smallest block the C library's malloc serves (`Source::Malloc`).
const LARGE: usize = 256 << 10;

/// The smallest block advised for transparent huge pages (`mapped`).
const HUGE: usize = 4 << 20;

/// Where the blocks of a layout come from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Source {
    /// A size class: this thread's free list, else mimalloc.
    Class(usize),
    /// mimalloc.
    Pages,
    /// The C library's malloc.
    Malloc,
    /// A mapping of its own (`mapped`).
    Mapped,
}

#[inline]
fn source_of(layout: Layout) -> Source {
    match class_of(layout) {
        Some(class) => Source::Class(class),
        None if layout.size() >= HUGE && layout.align() <= mapped::ALIGN => Source::Mapped,
        None if layout.size() >= LARGE => Source::Malloc,
        None => Source::Pages,
    }
}

/// The size class of `layout`, when it is small.
#[inline]
fn class_of(layout: Layout) -> Option<usize> {
    let size = layout.size();
    (size <= SMALL && layout.align() <= 16).then(|| size.max(1).div_ceil(16) - 1)
}

/// The size of the blocks of class `class`.
#[inline]
fn class_size(class: usize) -> usize {
    16 * (class + 1)
}

/// The layout every block of class `class` is allocated with, whatever its request's
/// alignment: any cached block may then serve any request of the class.
#[inline]
fn class_layout(class: usize) -> Layout {
    // SAFETY: the size is nonzero and 16 a power of two.
    unsafe { Layout::from_size_align_unchecked(class_size(class), 16) }
}

/// One thread's free lists: the first word of each cached block points at the next.
struct FreeLists {
    on: bool,
    heads: [*mut u8; CLASSES],
    bytes: usize,
}

thread_local! {
    static FREE: std::cell::UnsafeCell<FreeLists> = const {
        std::cell::UnsafeCell::new(FreeLists {
            on: false,
            heads: [std::ptr::null_mut(); CLASSES],
            bytes: 0,
        })
    };
}

/// Keep the small blocks this thread frees for its own next allocations. Called by the
/// thread that runs the session, which lives as long as the process (what its lists hold
/// when it ends is not given back).
pub fn cache_small_blocks() {
    // SAFETY: the lists are this thread's own, and nothing else borrows them now.
    FREE.with(|lists| unsafe { (*lists.get()).on = true });
}

impl Counting {
    /// A block of class `class`: from this thread's list, else from mimalloc.
    #[inline]
    unsafe fn alloc_small(&self, class: usize) -> *mut u8 {
        let cached = FREE.with(|lists| {
            // SAFETY: the lists are this thread's; the allocator is not re-entered while
            // they are borrowed (nothing here allocates). A cached block is at least 16 bytes
            // and its first word holds the next block's address.
            unsafe {
                let lists = &mut *lists.get();
                let head = lists.heads[class];
                if !head.is_null() {
                    lists.heads[class] = *(head as *mut *mut u8);
                    lists.bytes -= class_size(class);
                }
                head
            }
        });
        if !cached.is_null() {
            return cached;
        }
        let layout = class_layout(class);
        let pointer = unsafe { Backing.alloc(layout) };
        if !pointer.is_null() {
            self.grew(layout.size());
        }
        pointer
    }

    /// Free a block of class `class`: onto this thread's list when it keeps one and has
    /// room, else to mimalloc.
    #[inline]
    unsafe fn dealloc_small(&self, pointer: *mut u8, class: usize) {
        let size = class_size(class);
        let kept = FREE.with(|lists| {
            // SAFETY: as in `alloc_small`; the block is at least 16 bytes, aligned to 16, and
            // no longer used by its owner.
            unsafe {
                let lists = &mut *lists.get();
                let room = CACHED.min(BUDGET.load(Ordering::Relaxed) / 8);
                if !lists.on || lists.bytes + size > room {
                    return false;
                }
                *(pointer as *mut *mut u8) = lists.heads[class];
                lists.heads[class] = pointer;
                lists.bytes += size;
                true
            }
        });
        if !kept {
            unsafe { Backing.dealloc(pointer, class_layout(class)) };
            self.shrank(size);
        }
    }
}

// SAFETY: a small request gets a block of at least its size and alignment (its class's size,
// aligned to 16), and is freed back to a list or to mimalloc with its class's layout; every
// other request is forwarded with the same arguments to its source, the one its size picks,
// which is the same when it is freed (a block changing source moves). The
// counting only touches atomics and never allocates.
unsafe impl GlobalAlloc for Counting {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let pointer = match source_of(layout) {
            Source::Class(class) => return unsafe { self.alloc_small(class) },
            Source::Pages => unsafe { Backing.alloc(layout) },
            Source::Malloc => unsafe { System.alloc(layout) },
            Source::Mapped => unsafe { mapped::alloc(layout.size()) },
        };
        if !pointer.is_null() {
            self.grew(layout.size());
        }
        pointer
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let pointer = match source_of(layout) {
            Source::Class(class) => {
                let pointer = unsafe { self.alloc_small(class) };
                if !pointer.is_null() {
                    unsafe { std::ptr::write_bytes(pointer, 0, layout.size()) };
                }
                return pointer;
            }
            Source::Pages => unsafe { Backing.alloc_zeroed(layout) },
            Source::Malloc => unsafe { System.alloc_zeroed(layout) },
            // A new mapping reads as zeros.
            Source::Mapped => unsafe { mapped::alloc(layout.size()) },
        };
        if !pointer.is_null() {
            self.grew(layout.size());
        }
        pointer
    }

    #[inline]
    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        match source_of(layout) {
            Source::Class(class) => return unsafe { self.dealloc_small(pointer, class) },
            Source::Pages => unsafe { Backing.dealloc(pointer, layout) },
            Source::Malloc => unsafe { System.dealloc(pointer, layout) },
            Source::Mapped => unsafe { mapped::dealloc(pointer, layout.size()) },
        }
        self.shrank(layout.size());
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY (of the layout): `new_size` rounded up to the alignment does not overflow,
        // as the caller promises.
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        let moved = match (source_of(layout), source_of(new_layout)) {
            (Source::Class(old), Source::Class(new)) if old == new => return pointer,
            (Source::Pages, Source::Pages) => unsafe { Backing.realloc(pointer, layout, new_size) },
            (Source::Malloc, Source::Malloc) => unsafe {
                System.realloc(pointer, layout, new_size)
            },
            (Source::Mapped, Source::Mapped) => unsafe {
                mapped::realloc(pointer, layout.size(), new_size)
            },
            _ => {
                // From one source to another: a new block, the bytes copied, the old freed.
                let moved = unsafe { self.alloc(new_layout) };
                if !moved.is_null() {
                    let n = layout.size().min(new_size);
                    unsafe {
                        std::ptr::copy_nonoverlapping(pointer, moved, n);
                        self.dealloc(pointer, layout);
                    }
                }
                return moved;
            }
        };
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

/// The blocks of `HUGE` bytes and more: each a private anonymous mapping of its own, grown and
/// shrunk by remapping (the kernel moves its pages, or extends it in place), advised as a
/// whole for transparent huge pages (the kernel then allocates one on the first write into
/// each 2 MiB it wholly covers; pages never written still take no memory). Elsewhere than
/// Linux, the C library's malloc serves them.
mod mapped {
    /// The largest alignment a mapping is sure to have: a page.
    pub(super) const ALIGN: usize = 4096;

    #[cfg(target_os = "linux")]
    pub(super) unsafe fn alloc(size: usize) -> *mut u8 {
        // SAFETY: a new private anonymous mapping; nothing else is touched.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                size,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return std::ptr::null_mut();
        }
        advise(p, size);
        p.cast()
    }

    #[cfg(target_os = "linux")]
    pub(super) unsafe fn dealloc(pointer: *mut u8, size: usize) {
        // SAFETY: the caller's block is the mapping `alloc` or `realloc` made of `size` bytes.
        unsafe { libc::munmap(pointer.cast(), size) };
    }

    #[cfg(target_os = "linux")]
    pub(super) unsafe fn realloc(pointer: *mut u8, size: usize, new_size: usize) -> *mut u8 {
        // SAFETY: as in `dealloc`; the kernel keeps the bytes, moving the pages if it must,
        // and the mapping keeps its advice.
        let p = unsafe { libc::mremap(pointer.cast(), size, new_size, libc::MREMAP_MAYMOVE) };
        if p == libc::MAP_FAILED {
            return std::ptr::null_mut();
        }
        p.cast()
    }

    /// Advise the whole mapping at `p` of `size` bytes for transparent huge pages. Advice the
    /// system refuses changes nothing.
    #[cfg(target_os = "linux")]
    fn advise(p: *mut libc::c_void, size: usize) {
        // SAFETY: the range is the whole mapping just made; the advice changes how its pages
        // are backed, not their contents.
        unsafe { libc::madvise(p, size, libc::MADV_HUGEPAGE) };
    }

    #[cfg(not(target_os = "linux"))]
    use std::alloc::{GlobalAlloc, Layout, System};

    #[cfg(not(target_os = "linux"))]
    fn layout(size: usize) -> Layout {
        Layout::from_size_align(size, ALIGN).expect("a block's size")
    }

    #[cfg(not(target_os = "linux"))]
    pub(super) unsafe fn alloc(size: usize) -> *mut u8 {
        unsafe { System.alloc_zeroed(layout(size)) }
    }

    #[cfg(not(target_os = "linux"))]
    pub(super) unsafe fn dealloc(pointer: *mut u8, size: usize) {
        unsafe { System.dealloc(pointer, layout(size)) }
    }

    #[cfg(not(target_os = "linux"))]
    pub(super) unsafe fn realloc(pointer: *mut u8, size: usize, new_size: usize) -> *mut u8 {
        unsafe { System.realloc(pointer, layout(size), new_size) }
    }
}

/// The process's memory policy, set once at its start:
/// - Transparent huge pages back only the memory advised for them (mimalloc's heap, the large
///   blocks of `mapped`), whatever the system's default: on a system that gives
///   them to all memory, a small program's heap faulted in 2 MiB at a time doubled its
///   resident memory and its start-up. Where the kernel cannot make that exception (before
///   Linux 6.18), huge pages are turned off for the process.
/// - The C library's malloc (which serves only the large blocks) keeps one arena for all
///   threads, not one per thread: each arena reserves 128 MiB of address space, and under an
///   address-space limit (`ulimit -v 1048576`) a run on 2 threads sometimes had none left for
///   a small block and aborted.
pub fn set_memory_policy() {
    #[cfg(target_os = "linux")]
    {
        const PR_THP_DISABLE_EXCEPT_ADVISED: libc::c_ulong = 1 << 1;
        // SAFETY: prctl with these arguments only sets the process's page policy; mallopt
        // only sets a parameter of the C library's allocator.
        unsafe {
            if libc::prctl(
                libc::PR_SET_THP_DISABLE,
                1 as libc::c_ulong,
                PR_THP_DISABLE_EXCEPT_ADVISED,
                0 as libc::c_ulong,
                0 as libc::c_ulong,
            ) != 0
            {
                libc::prctl(libc::PR_SET_THP_DISABLE, 1 as libc::c_ulong, 0, 0, 0);
            }
            libc::mallopt(libc::M_ARENA_MAX, 1);
        }
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
/// used: the native stack segments (up to `--max-stack`), each thread's stack and heap
/// pages, the compiled code, and a value being rebuilt (a string doubled, an array copied on
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_class_holds_its_requests_and_is_a_size_mimalloc_serves() {
        for size in 1..=SMALL {
            for align in [1, 2, 4, 8, 16] {
                let layout = Layout::from_size_align(size, align).unwrap();
                let class = class_of(layout).unwrap();
                assert!(class < CLASSES);
                assert!(class_size(class) >= size, "{size} in class {class}");
                assert!(
                    class == 0 || class_size(class - 1) < size,
                    "{size}: smallest class"
                );
                // mimalloc's bins of 16 to 128 bytes are the multiples of 16.
                assert_eq!(class_size(class) % 16, 0);
            }
        }
        assert_eq!(
            class_of(Layout::from_size_align(SMALL + 1, 8).unwrap()),
            None
        );
        assert_eq!(class_of(Layout::from_size_align(16, 32).unwrap()), None);
    }

    #[test]
    fn a_block_keeps_its_bytes_when_it_grows_or_shrinks_into_another_source() {
        assert_eq!(
            source_of(Layout::from_size_align(LARGE - 1, 8).unwrap()),
            Source::Pages
        );
        assert_eq!(
            source_of(Layout::from_size_align(LARGE, 8).unwrap()),
            Source::Malloc
        );
        assert_eq!(
            source_of(Layout::from_size_align(HUGE, 8).unwrap()),
            Source::Mapped
        );
        assert_eq!(
            source_of(Layout::from_size_align(HUGE, 2 * mapped::ALIGN).unwrap()),
            Source::Malloc
        );
        let mut bytes: Vec<u8> = Vec::new();
        // From a class through mimalloc's pages and the C library's blocks to mappings of
        // their own (grown in place or moved by remapping), and back down.
        for n in [
            100usize,
            1000,
            LARGE + 1,
            2 * LARGE,
            HUGE + 4097,
            3 * HUGE,
            7 * HUGE + 1,
            2 * HUGE,
            5000,
            50,
        ] {
            let old = bytes.len().min(n);
            bytes.resize(n, 0);
            bytes.shrink_to_fit();
            for (i, b) in bytes.iter_mut().enumerate().skip(old) {
                *b = (i % 251) as u8;
            }
            assert!(bytes.iter().enumerate().all(|(i, b)| *b == (i % 251) as u8));
        }
        for n in [LARGE, HUGE + 8] {
            let zeroed: Vec<u64> = vec![0; n];
            assert!(zeroed.iter().all(|x| *x == 0));
        }
    }

    #[test]
    fn cached_blocks_come_back_and_keep_their_bytes() {
        cache_small_blocks();
        let sizes = [1usize, 8, 16, 17, 24, 40, 56, 88, 100, 120, 128, 129, 4000];
        for round in 0..3 {
            let blocks: Vec<Vec<u8>> = sizes
                .iter()
                .map(|&n| (0..n).map(|i| (i + round) as u8).collect())
                .collect();
            for (block, &n) in blocks.iter().zip(&sizes) {
                assert!(block
                    .iter()
                    .enumerate()
                    .all(|(i, b)| *b == (i + round) as u8));
                assert_eq!(block.len(), n);
            }
            // Growing and shrinking across classes keeps the bytes.
            let mut grown: Vec<u8> = Vec::with_capacity(10);
            for i in 0..300u32 {
                grown.push(i as u8);
                if i % 50 == 0 {
                    grown.shrink_to_fit();
                }
            }
            assert!(grown.iter().enumerate().all(|(i, b)| *b == i as u8));
        }
        let zeroed: Vec<u64> = vec![0; 12];
        assert!(zeroed.iter().all(|x| *x == 0));
    }
}
