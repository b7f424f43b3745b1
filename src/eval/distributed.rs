//! Distributed arrays at run time. A value of type `distributed T ^ I` is held like a plain
//! array of the same type, but process `r` of `p` owns only the positions
//! `[r·n/p, (r+1)·n/p)` of its linear index and computes only those; the others hold zeros.
//! The chunked kernels (`Prim::Dist`) run on the owned positions and combine across processes
//! through MPI when the interpreter is built with the `mpi` feature and started by `mpirun`;
//! otherwise there is one process, owning everything, and the kernels are the same code.
//!
//! Results do not depend on the number of processes: integers are exact, and a floating
//! reduction is defined as a fixed tree over tiles of `TILE` positions of the linear index
//! (each tile folded left to right, the tile results combined pairwise, halving), which every
//! process count computes in the same order: a tile split between two processes is folded
//! from the elements both contribute.

use crate::core::ir::ArithOp;

use super::error::Fault;

pub mod sample_sort;
pub mod tiles;
pub mod wire;

/// The positions of one tile of a floating reduction.
pub const TILE: usize = 4096;

/// This process's rank and the number of processes.
pub fn world() -> (usize, usize) {
    #[cfg(feature = "mpi")]
    {
        // Asked once MPI has started (they never change while it runs).
        static WORLD: std::sync::OnceLock<(usize, usize)> = std::sync::OnceLock::new();
        if let Some(world) = WORLD.get() {
            return *world;
        }
        if let Some(world) = mpi_world() {
            use mpi::topology::Communicator;
            return *WORLD.get_or_init(|| (world.rank() as usize, world.size() as usize));
        }
    }
    (0, 1)
}

#[cfg(feature = "mpi")]
pub(crate) fn mpi_world() -> Option<mpi::topology::SimpleCommunicator> {
    (mpi::environment::is_initialized() && !mpi::environment::is_finalized())
        .then(mpi::topology::SimpleCommunicator::world)
}

/// Start MPI when the program runs under `mpirun` (the `mpi` feature): the guard finalises
/// it when dropped. Without the feature, or outside `mpirun`, there is one process.
#[cfg(feature = "mpi")]
pub fn start() -> Option<mpi::environment::Universe> {
    let launched = ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"]
        .iter()
        .any(|v| std::env::var_os(v).is_some());
    if !launched {
        return None;
    }
    // The program runs on the session's thread, not the one that starts MPI.
    mpi::initialize_with_threading(mpi::Threading::Serialized).map(|(universe, _)| universe)
}

/// Where the standard error of this process was going: in a run of several processes every
/// process holds its messages back until `finish`, which lets exactly one of them speak.
static HELD_STDERR: std::sync::OnceLock<(i32, std::fs::File)> = std::sync::OnceLock::new();

/// In a run of several processes: send the standard output of every process but rank 0 to
/// `/dev/null`, and hold every process's standard error back until `finish`. The program
/// prints once, and its error (if any) is reported once, whatever the number of processes.
pub fn hold_output() {
    if world().1 == 1 {
        return;
    }
    use std::os::fd::AsRawFd;
    let held = std::env::temp_dir().join(format!("tessera-rank-{}.err", std::process::id()));
    let (Ok(null), Ok(file)) = (
        std::fs::OpenOptions::new().write(true).open("/dev/null"),
        std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&held),
    ) else {
        return;
    };
    let _ = std::fs::remove_file(&held);
    // SAFETY: `dup` and `dup2` on open descriptors; the standard streams are replaced
    // atomically and the original standard error is kept open in `HELD_STDERR`.
    unsafe {
        let original = libc::dup(libc::STDERR_FILENO);
        if !prints() {
            libc::dup2(null.as_raw_fd(), libc::STDOUT_FILENO);
        }
        libc::dup2(file.as_raw_fd(), libc::STDERR_FILENO);
        let _ = HELD_STDERR.set((original, file));
    }
}

/// A failure that every process has learnt of: the process whose error is reported (the
/// lowest rank that failed, so the lowest position of the linear index) and its exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Failure {
    reporter: usize,
    status: i32,
}

/// The failure agreed on, once some process has failed.
static AGREED: std::sync::OnceLock<Failure> = std::sync::OnceLock::new();

/// One agreement of all processes on whether any has failed: `failed` is this process's exit
/// status if it has. Every process takes part in the same sequence of agreements: each
/// collective operation begins with one, every kernel that runs code on chunks ends with one,
/// and a process that fails takes part in one more, in `finish`, when its error has ended its
/// run. The process that failed is then at the end of its run, and each of the others at the
/// first agreement after the failure, where it learns of it and stops (`agree`), so no process
/// waits for another that has stopped, and no process goes on past the point of the failure.
fn agreement(failed: Option<i32>) -> Option<Failure> {
    let (rank, size) = world();
    if size == 1 {
        return None;
    }
    if let Some(failure) = AGREED.get() {
        return Some(*failure);
    }
    let mine = failed.map_or(u64::MAX, |status| {
        ((rank as u64) << 8) | u64::from(status.clamp(1, 255) as u8)
    });
    #[allow(unused_mut)]
    let mut least = mine;
    #[cfg(feature = "mpi")]
    if let Some(world) = mpi_world() {
        use mpi::collective::{CommunicatorCollectives, SystemOperation};
        world.all_reduce_into(&mine, &mut least, SystemOperation::min());
    }
    (least != u64::MAX).then(|| {
        *AGREED.get_or_init(|| Failure {
            reporter: (least >> 8) as usize,
            status: (least & 0xff) as i32,
        })
    })
}

/// The agreement of a process that has not failed: `Err` when another has, which ends this
/// process's run too (its error is not reported: the failed process reports its own).
pub fn agree() -> Result<(), Fault> {
    match agreement(None) {
        None => Ok(()),
        Some(_) => Err(Fault::new(
            super::error::INTERNAL,
            "stopped: another process failed",
        )),
    }
}

/// The end of a run with exit status `status`; returns the status the process exits with. In
/// a run of several processes, a process that has not yet learnt of a failure takes part in
/// a last agreement; then only the process whose failure is reported (or rank 0, when none
/// failed) writes the standard error it held back, and all exit with that failure's status.
pub fn finish(status: i32) -> i32 {
    let (rank, size) = world();
    if size == 1 {
        return status;
    }
    let failure = agreement((status != 0).then_some(status));
    let speaks = failure.map_or(rank == 0, |f| f.reporter == rank);
    if let (true, Some((original, file))) = (speaks, HELD_STDERR.get()) {
        use std::io::{Read, Seek};
        let mut text = Vec::new();
        let mut file = file;
        if file.rewind().is_ok() && file.read_to_end(&mut text).is_ok() {
            // SAFETY: writing a buffer to the descriptor kept open by `hold_output`.
            unsafe {
                libc::write(*original, text.as_ptr().cast(), text.len());
            }
        }
    }
    // No process exits before the one that speaks has written (`mpirun` ends the others when
    // the first exits with a failure).
    #[cfg(feature = "mpi")]
    if let Some(world) = mpi_world() {
        use mpi::collective::CommunicatorCollectives;
        world.barrier();
    }
    failure.map_or(0, |f| f.status)
}

/// Standard output written through at once (in a run of several processes).
pub struct Unbuffered<W>(pub W);

impl<W: std::io::Write> std::io::Write for Unbuffered<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.write_all(bytes)?;
        self.0.flush()?;
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// Wait until every process reaches this point (after a file is written, before it is read).
pub fn barrier() -> Result<(), Fault> {
    agree()?;
    #[cfg(feature = "mpi")]
    if let Some(world) = mpi_world() {
        use mpi::collective::CommunicatorCollectives;
        world.barrier();
    }
    Ok(())
}

/// Is this the process that prints (rank 0)?
pub fn prints() -> bool {
    world().0 == 0
}

/// The positions process `rank` of `size` owns in an array of `n` positions.
pub fn chunk(n: usize, rank: usize, size: usize) -> (usize, usize) {
    let at = |r: usize| ((r as u128 * n as u128) / size as u128) as usize;
    (at(rank), at(rank + 1))
}

/// The positions this process owns.
pub fn owned(n: usize) -> (usize, usize) {
    let (rank, size) = world();
    chunk(n, rank, size)
}

/// What one process contributes to a floating reduction: for each tile it touches, the tile's
/// folded value when it owns the whole tile, or its elements of the tile otherwise.
#[derive(Default)]
struct Contribution {
    whole: Vec<(usize, f64)>,
    parts: Vec<(usize, Vec<f64>)>,
}

fn contribute(values: &[f64], lo: usize, n: usize, op: ArithOp, single: bool) -> Contribution {
    let hi = lo + values.len();
    let mut out = Contribution::default();
    if lo >= hi {
        return out;
    }
    for tile in lo / TILE..hi.div_ceil(TILE) {
        let (start, end) = (tile * TILE, ((tile + 1) * TILE).min(n));
        let (from, to) = (start.max(lo), end.min(hi));
        let elements = &values[from - lo..to - lo];
        if from == start && to == end {
            out.whole.push((tile, fold(elements, op, single)));
        } else {
            out.parts.push((tile, elements.to_vec()));
        }
    }
    out
}

fn fold(values: &[f64], op: ArithOp, single: bool) -> f64 {
    let mut acc = values[0];
    for &x in &values[1..] {
        acc = super::prims::round_float(super::prims::float_arith(op, acc, x), single);
    }
    acc
}

/// The tile results combined pairwise: the left half's with the right half's.
fn tree(tiles: &[f64], op: ArithOp, single: bool) -> f64 {
    match tiles.len() {
        1 => tiles[0],
        k => {
            let (l, r) = tiles.split_at(k / 2);
            super::prims::round_float(
                super::prims::float_arith(op, tree(l, op, single), tree(r, op, single)),
                single,
            )
        }
    }
}

/// The reduction of a floating array of `n` positions by `op` (`+` or `*`), of which this
/// process holds `values`, its owned positions from `lo`: the same value on every process
/// and for every process count.
pub fn reduce_float(
    values: &[f64],
    lo: usize,
    n: usize,
    op: ArithOp,
    single: bool,
) -> Result<f64, Fault> {
    if n == 0 {
        return Ok(if op == ArithOp::Mul { 1.0 } else { 0.0 });
    }
    let mine = contribute(values, lo, n, op, single);
    Ok(combine(gather_contributions(mine)?, n, op, single))
}

/// The reduction of `n` positions from every process's contribution, in process order:
/// each tile folded whole or from its pieces, then the fixed tree over the tiles.
fn combine(
    all: impl IntoIterator<Item = Contribution>,
    n: usize,
    op: ArithOp,
    single: bool,
) -> f64 {
    let mut tiles: Vec<Option<f64>> = vec![None; n.div_ceil(TILE)];
    let mut pieces: Vec<Vec<f64>> = vec![Vec::new(); tiles.len()];
    for c in all {
        for (t, v) in c.whole {
            tiles[t] = Some(v);
        }
        for (t, part) in c.parts {
            pieces[t].extend(part);
        }
    }
    let folded: Vec<f64> = tiles
        .into_iter()
        .zip(&pieces)
        .map(|(t, p)| t.unwrap_or_else(|| fold(p, op, single)))
        .collect();
    tree(&folded, op, single)
}

/// The exact sum or product of an integer array, from each process's exact partial
/// (`None`: a partial that does not fit).
pub fn reduce_int(partial: Option<i128>, sum: bool) -> Result<Option<i128>, Fault> {
    let all = gather_i128(partial)?;
    // A zero factor anywhere makes the product zero, whatever the others.
    if !sum && all.contains(&Some(0)) {
        return Ok(Some(0));
    }
    let total = all
        .into_iter()
        .try_fold(if sum { 0 } else { 1 }, |acc: i128, p| {
            let p = p?;
            if sum {
                acc.checked_add(p)
            } else {
                acc.checked_mul(p)
            }
        });
    Ok(total)
}

fn encode(c: &Contribution) -> Vec<f64> {
    // Tile numbers travel as floats: exact below 2^53 tiles.
    let mut out = vec![c.whole.len() as f64, c.parts.len() as f64];
    for (t, v) in &c.whole {
        out.extend([*t as f64, *v]);
    }
    for (t, p) in &c.parts {
        out.extend([*t as f64, p.len() as f64]);
        out.extend(p);
    }
    out
}

fn decode(words: &[f64]) -> Contribution {
    let (whole, parts) = (words[0] as usize, words[1] as usize);
    let mut at = 2;
    let mut c = Contribution::default();
    for _ in 0..whole {
        c.whole.push((words[at] as usize, words[at + 1]));
        at += 2;
    }
    for _ in 0..parts {
        let (t, k) = (words[at] as usize, words[at + 1] as usize);
        c.parts.push((t, words[at + 2..at + 2 + k].to_vec()));
        at += 2 + k;
    }
    c
}

/// Every process's contribution, in rank order.
fn gather_contributions(mine: Contribution) -> Result<Vec<Contribution>, Fault> {
    let words = encode(&mine);
    Ok(gather_f64(&words)?.iter().map(|w| decode(w)).collect())
}

fn gather_i128(partial: Option<i128>) -> Result<Vec<Option<i128>>, Fault> {
    // Three words, carried as their bits: present, high half, low half.
    let words = match partial {
        Some(v) => [
            1.0,
            f64::from_bits((v >> 64) as u64),
            f64::from_bits(v as u64),
        ],
        None => [0.0; 3],
    };
    Ok(gather_f64(&words)?
        .into_iter()
        .map(|w| {
            (w[0] == 1.0)
                .then(|| ((w[1].to_bits() as i64 as i128) << 64) | (w[2].to_bits() as i128))
        })
        .collect())
}

/// Each process's words, in rank order, on every process.
pub fn gather_f64(mine: &[f64]) -> Result<Vec<Vec<f64>>, Fault> {
    agree()?;
    #[cfg(feature = "mpi")]
    {
        if let Some(world) = mpi_world() {
            return Ok(mpi_gather(&world, mine));
        }
    }
    Ok(vec![mine.to_vec()])
}

#[cfg(feature = "mpi")]
fn mpi_gather<T: mpi::traits::Equivalence + Copy + Default>(
    world: &mpi::topology::SimpleCommunicator,
    mine: &[T],
) -> Vec<Vec<T>> {
    use mpi::datatype::PartitionMut;
    use mpi::traits::*;
    let size = world.size() as usize;
    let mut counts = vec![0i32; size];
    world.all_gather_into(&(mine.len() as i32), &mut counts[..]);
    let displs: Vec<i32> = counts
        .iter()
        .scan(0, |at, &c| {
            let d = *at;
            *at += c;
            Some(d)
        })
        .collect();
    let total: i32 = counts.iter().sum();
    if total == 0 {
        // Nothing to gather (and two empty vectors' dangling pointers are equal, which MPI
        // refuses as a send buffer that is the receive buffer).
        return vec![Vec::new(); size];
    }
    let mut all = vec![T::default(); total as usize];
    {
        let mut partition = PartitionMut::new(&mut all[..], &counts[..], &displs[..]);
        world.all_gather_varcount_into(mine, &mut partition);
    }
    counts
        .iter()
        .zip(&displs)
        .map(|(&c, &d)| all[d as usize..(d + c) as usize].to_vec())
        .collect()
}

/// The whole array on every process, from each process's owned positions of `buf` (`leaves`
/// per element), sent as `wire` sends leaves (scalars at their storage width).
pub fn collect(buf: &mut super::value::Buffer, leaves: usize) -> Result<(), Fault> {
    let (rank, size) = world();
    if size == 1 {
        return Ok(());
    }
    let leaves = leaves.max(1);
    let n = buf.len() / leaves;
    let (lo, hi) = chunk(n, rank, size);
    let mut mine = Vec::new();
    wire::encode_leaves(buf, lo * leaves..hi * leaves, &mut mine)?;
    for (r, part) in gather_bytes(&mine)?.into_iter().enumerate() {
        let (lo, hi) = chunk(n, r, size);
        wire::decode_leaves(buf, lo * leaves, (hi - lo) * leaves, &part)?;
    }
    Ok(())
}

/// Each process's bytes, in rank order, on every process.
pub fn gather_bytes(mine: &[u8]) -> Result<Vec<Vec<u8>>, Fault> {
    agree()?;
    #[cfg(feature = "mpi")]
    {
        if let Some(world) = mpi_world() {
            return Ok(mpi_gather(&world, mine));
        }
    }
    Ok(vec![mine.to_vec()])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The contributions of `p` processes, combined as `reduce_float` combines them.
    fn reduce_on(values: &[f64], p: usize) -> f64 {
        let n = values.len();
        let all = (0..p).map(|r| {
            let (lo, hi) = chunk(n, r, p);
            decode(&encode(&contribute(
                &values[lo..hi],
                lo,
                n,
                ArithOp::Add,
                false,
            )))
        });
        combine(all, n, ArithOp::Add, false)
    }

    #[test]
    fn a_floating_sum_has_the_same_bits_on_any_number_of_processes() {
        // Values whose sum depends on the order of the additions.
        let values: Vec<f64> = (0..3 * TILE + 123)
            .map(|i| ((i * 7919) % 1000) as f64 * 1e-3 + if i % 97 == 0 { 1e12 } else { 0.0 })
            .collect();
        let one = reduce_float(&values, 0, values.len(), ArithOp::Add, false).unwrap();
        for p in 1..=7 {
            assert_eq!(
                reduce_on(&values, p).to_bits(),
                one.to_bits(),
                "{p} processes"
            );
        }
        let sequential: f64 = values.iter().sum();
        assert!((one - sequential).abs() <= 1e-6 * sequential.abs());
    }

    #[test]
    fn chunks_cover_the_linear_index_once() {
        for (n, p) in [(10, 3), (2, 4), (0, 2), (7, 1)] {
            let mut next = 0;
            for r in 0..p {
                let (lo, hi) = chunk(n, r, p);
                assert_eq!(lo, next);
                next = hi;
            }
            assert_eq!(next, n);
        }
    }

    #[test]
    fn integer_partials_combine_exactly() {
        let big = i64::MAX as i128;
        assert_eq!(reduce_int(Some(big + 5), true), Ok(Some(big + 5)));
        assert_eq!(reduce_int(Some(-3), false), Ok(Some(-3)));
        assert_eq!(reduce_int(None, true), Ok(None));
        assert_eq!(gather_i128(Some(-(big * 3))), Ok(vec![Some(-(big * 3))]));
    }
}
