//! Parallel native loops (spec L9.5) at run time: a loop whose iterations are independent (each
//! stores only at its own position, reads nothing another iteration writes, and has no other
//! effect; `lower/parallel.rs` decides) runs its body, compiled as a function of a range of the
//! loop variable, over chunks of that range on the session's rayon workers.
//!
//! Values and faults are those of the sequential loop on any number of threads. Chunks are
//! fixed by position and claimed in increasing order; each worker has a runtime of its own
//! (the session's globals, no output), where a fault is recorded. The fault reported is the one
//! of the lowest faulting chunk, which is the first the sequential loop meets (the chunks before
//! it ran without a fault, and no iteration depends on another). Its stores before the fault are
//! the sequential loop's; a later chunk may have stored too, so every chunk saves the positions
//! it is about to overwrite in the arrays it stores into, and the saves of the chunks after the
//! faulting one are written back. A save is dropped once every chunk up to its own has finished
//! without a fault, so only the chunks in flight hold one.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::super::parallel::{thread_count, PARALLEL_THRESHOLD};
use super::super::value::Value;
use super::super::{Globals, Runtime};
use super::runtime::{fail, take_failure, Fault};

/// Positions of the loop variable per chunk.
const CHUNK: usize = 1 << 15;

/// What the helper knows of a parallel loop's context words (written by the loop before the
/// call; the chunk function reads the same words).
pub struct ChunkLoop {
    /// The first `views` words are the addresses of the arrays' leaves: all must be non-null
    /// (a variable holding no array yet is left to the sequential loop).
    pub views: usize,
    /// The columns stored into: the word of each one's address, the word of its count, and
    /// the bytes of one of its leaves.
    pub stored: Vec<(usize, usize, usize)>,
}

/// The chunk function: the body for the loop variable from `lo` while below `hi`, on the
/// runtime given (its failure flag set on a fault).
type ChunkFn = extern "C" fn(&Runtime<'_>, *const i64, i64, i64);

/// What a worker's runtime takes from the session's: the address of the globals, the limits.
#[derive(Clone, Copy)]
struct Shared {
    globals: usize,
    max_depth: u32,
    limits: crate::limits::Limits,
}

/// A runtime for a worker: the session's globals (read in place), no output, its own failure.
fn worker_runtime<'o>(
    rt: Shared,
    out: &'o mut std::io::Sink,
    err: &'o mut std::io::Sink,
) -> Runtime<'o> {
    let globals = Globals::new(Vec::new());
    globals.base.set(rt.globals as *mut Value);
    Runtime {
        globals,
        out: RefCell::new(out),
        err: RefCell::new(err),
        depth: Cell::new(0),
        max_depth: rt.max_depth,
        limits: rt.limits,
        stack_floor: Cell::new(usize::MAX),
        frame_pool: RefCell::new(Vec::new()),
        returned: Cell::new(Value::Unit),
        native_failed: Cell::new(0),
        native_fault: RefCell::new(None),
        native_label: Cell::new(0),
        native_result: Cell::new(0),
        program: RefCell::new(None),
        world: RefCell::new(Default::default()),
    }
}

/// The words of the chunk function's context, shared read-only by the workers.
#[derive(Clone, Copy)]
struct Words(*const i64);
// SAFETY: the context is written before the workers start and only read while they run.
unsafe impl Send for Words {}
unsafe impl Sync for Words {}

impl Words {
    fn get(self, k: usize) -> i64 {
        // SAFETY: `k` is a word of the context `ChunkLoop` describes.
        unsafe { *self.0.add(k) }
    }

    /// The bytes of the leaves `lo .. hi` (clamped to the column) of the stored column
    /// `(data, len, width)`: their address and count.
    fn column(
        self,
        (data, len, width): (usize, usize, usize),
        lo: i64,
        hi: i64,
    ) -> (*mut u8, usize) {
        let n = self.get(len).max(0) as usize;
        let lo = lo.clamp(0, n as i64) as usize;
        let hi = (hi.max(0) as usize).clamp(lo, n);
        // SAFETY: `lo` is within the column's leaves.
        let at = unsafe { (self.get(data) as *mut u8).add(lo * width) };
        (at, (hi - lo) * width)
    }
}

/// Saves of chunks not yet known to be kept: a chunk's is dropped once every chunk up to it
/// finished without a fault.
#[derive(Default)]
struct Progress {
    kept: usize,
    finished: BTreeSet<usize>,
    saves: BTreeMap<usize, Vec<Vec<u8>>>,
    fault: Option<(usize, Fault)>,
}

/// Make the pages of the `bytes` bytes at `at` present and writable before a chunk saves and
/// stores them. A page of a fresh array that was never touched would otherwise be read in by
/// the save as the shared zero page and copied at the store, and with several workers in one
/// address space each such copy interrupts the other CPUs to flush their TLBs (a parallel fill
/// of a fresh array ran five times slower on two threads than on one). Populating leaves the
/// bytes as they are, so the pages a chunk shares with its neighbours are safe; a kernel
/// without it (before Linux 5.14) declines, and nothing changes.
fn populate_for_writing(at: *mut u8, bytes: usize) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        if bytes == 0 {
            return;
        }
        let start = at as usize & !(PAGE - 1);
        let end = (at as usize + bytes).next_multiple_of(PAGE);
        // SAFETY: every page from `start` to `end` holds bytes of the column's leaves, which
        // are mapped writable; `MADV_POPULATE_WRITE` changes no byte.
        unsafe {
            libc::madvise(
                start as *mut libc::c_void,
                end - start,
                libc::MADV_POPULATE_WRITE,
            );
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (at, bytes);
}

/// Run the loop variable from `first` for `count` positions on rayon workers; 0 when the loop
/// is not run here (too short, one thread, an array not there yet), for the sequential loop.
/// A fault is recorded on `rt` as native code's own.
pub extern "C" fn chunk_loop(
    rt: &Runtime<'_>,
    body: ChunkFn,
    words: *const i64,
    first: i64,
    count: i64,
    desc: &ChunkLoop,
) -> u32 {
    let words = Words(words);
    let count = count.max(0) as usize;
    if count < PARALLEL_THRESHOLD
        || thread_count() < 2
        || (0..desc.views).any(|k| words.get(k) == 0)
    {
        return 0;
    }
    let shared = Shared {
        globals: rt.globals.base.get() as usize,
        max_depth: rt.max_depth,
        limits: rt.limits,
    };
    let chunks = count.div_ceil(CHUNK);
    let next = AtomicUsize::new(0);
    let stop = AtomicUsize::new(usize::MAX);
    let progress = Mutex::new(Progress::default());
    let range = |j: usize| {
        let lo = first + (j * CHUNK) as i64;
        (lo, lo + CHUNK.min(count - j * CHUNK) as i64)
    };
    let worker = || {
        let (mut out, mut err) = (std::io::sink(), std::io::sink());
        let wrt = worker_runtime(shared, &mut out, &mut err);
        loop {
            let j = next.fetch_add(1, Ordering::Relaxed);
            if j >= chunks || j > stop.load(Ordering::Relaxed) {
                break;
            }
            let (lo, hi) = range(j);
            let save: Vec<Vec<u8>> = desc
                .stored
                .iter()
                .map(|c| {
                    let (at, bytes) = words.column(*c, lo, hi);
                    populate_for_writing(at, bytes);
                    // SAFETY: the bytes are within the column's leaves, which no other chunk
                    // touches.
                    unsafe { std::slice::from_raw_parts(at, bytes) }.to_vec()
                })
                .collect();
            lock(&progress).saves.insert(j, save);
            body(&wrt, words.0, lo, hi);
            let failed = take_failure_caught(&wrt);
            let mut p = lock(&progress);
            match failed {
                None => {
                    p.finished.insert(j);
                    loop {
                        let kept = p.kept;
                        if !p.finished.remove(&kept) {
                            break;
                        }
                        p.saves.remove(&kept);
                        p.kept += 1;
                    }
                }
                Some(fault) => {
                    stop.fetch_min(j, Ordering::Relaxed);
                    if p.fault.as_ref().is_none_or(|(k, _)| j < *k) {
                        p.fault = Some((j, fault));
                    }
                }
            }
        }
    };
    rayon::scope(|s| {
        for _ in 0..thread_count() {
            s.spawn(|_| worker());
        }
    });
    let mut p = progress.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Some((k, fault)) = p.fault.take() {
        for (j, save) in p.saves.range(k + 1..) {
            let (lo, hi) = range(*j);
            for (c, old) in desc.stored.iter().zip(save) {
                let (at, _) = words.column(*c, lo, hi);
                // SAFETY: the leaves saved from this column before the chunk ran.
                unsafe { std::ptr::copy_nonoverlapping(old.as_ptr(), at, old.len()) };
            }
        }
        fail(rt, fault);
    }
    1
}

fn lock(p: &Mutex<Progress>) -> std::sync::MutexGuard<'_, Progress> {
    p.lock().unwrap_or_else(|e| e.into_inner())
}

/// The failure a worker's chunk left, if any (a panic kept as one).
fn take_failure_caught(wrt: &Runtime<'_>) -> Option<Fault> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| take_failure(wrt))) {
        Ok(Ok(())) => None,
        Ok(Err(ctrl)) => Some(Fault::Error(ctrl)),
        Err(payload) => Some(Fault::Panic(payload)),
    }
}
