//! Moving the elements of distributed arrays between processes: an all-to-all exchange of
//! byte messages (MPI's `Alltoallv` under the `mpi` feature; one process keeps its own
//! message), and the position arithmetic of the operations that move data: who owns a
//! position, where a filter's kept elements go, which positions a process reads around its
//! chunk (a stencil's halo), and where the blocks of a permutation (a transpose, a reversal)
//! go.
//!
//! Every position here is one of the linear index of `n` positions split as
//! `distributed::chunk` splits it: process `r` of `p` owns `[r·n/p, (r+1)·n/p)`.

use std::ops::Range;

use super::distributed::{agree, chunk, gather_f64};
use super::error::Fault;
#[cfg(feature = "mpi")]
use super::error::TOO_LARGE;

/// The process that owns position `pos` of `n` positions split over `size` processes: the
/// largest `r` with `r·n/p <= pos` (the ranks before it that own nothing are skipped).
pub fn owner(pos: usize, n: usize, size: usize) -> usize {
    debug_assert!(pos < n);
    (((pos as u128 + 1) * size as u128 - 1) / n as u128) as usize
}

/// Every process's count, in rank order, on every process.
pub fn gather_counts(mine: usize) -> Result<Vec<usize>, Fault> {
    Ok(gather_f64(&[f64::from_bits(mine as u64)])?
        .iter()
        .map(|w| w[0].to_bits() as usize)
        .collect())
}

/// The all-to-all exchange: `sends[d]` goes to process `d`; the result is what each process
/// sent to this one, in rank order. When a process would send or receive over 2 GiB, the
/// exchange is an `Err` (R0007) on every process.
pub fn all_to_all(sends: Vec<Vec<u8>>) -> Result<Vec<Vec<u8>>, Fault> {
    agree()?;
    #[cfg(feature = "mpi")]
    if let Some(world) = super::distributed::mpi_world() {
        return mpi_all_to_all(&world, sends);
    }
    debug_assert_eq!(sends.len(), 1);
    Ok(sends)
}

#[cfg(feature = "mpi")]
fn mpi_all_to_all(
    world: &mpi::topology::SimpleCommunicator,
    sends: Vec<Vec<u8>>,
) -> Result<Vec<Vec<u8>>, Fault> {
    use mpi::datatype::{Partition, PartitionMut};
    use mpi::traits::*;
    let lengths: Vec<u64> = sends.iter().map(|s| s.len() as u64).collect();
    let mut received = vec![0u64; sends.len()];
    world.all_to_all_into(&lengths[..], &mut received[..]);
    // MPI counts and displacements are 32-bit: every process learns whether any has more to
    // send or receive, before the exchange.
    let fits = |lengths: &[u64]| lengths.iter().sum::<u64>() < i32::MAX as u64;
    let all_fit = gather_counts(usize::from(fits(&lengths) && fits(&received)))?;
    if all_fit.contains(&0) {
        return Err(Fault::new(
            TOO_LARGE,
            "a process would send or receive over 2 GiB in one exchange",
        ));
    }
    let counts: Vec<i32> = lengths.iter().map(|&c| c as i32).collect();
    let recv_counts: Vec<i32> = received.iter().map(|&c| c as i32).collect();
    let displacements = |counts: &[i32]| -> Vec<i32> {
        counts
            .iter()
            .scan(0, |at, &c| {
                let d = *at;
                *at += c;
                Some(d)
            })
            .collect()
    };
    let (send_displs, recv_displs) = (displacements(&counts), displacements(&recv_counts));
    // One byte more than the messages in each buffer, so that neither is an empty vector
    // (whose dangling pointers are equal, which MPI refuses as a send buffer that is its
    // receive buffer).
    let mut send: Vec<u8> = sends.concat();
    send.push(0);
    let total: usize = recv_counts.iter().map(|&c| c as usize).sum();
    let mut recv = vec![0u8; total + 1];
    {
        let from = Partition::new(&send[..], &counts[..], &send_displs[..]);
        let mut into = PartitionMut::new(&mut recv[..], &recv_counts[..], &recv_displs[..]);
        world.all_to_all_varcount_into(&from, &mut into);
    }
    Ok(recv_counts
        .iter()
        .zip(&recv_displs)
        .map(|(&c, &d)| recv[d as usize..(d + c) as usize].to_vec())
        .collect())
}

/// Where a filter's kept elements go: this process kept `counts[rank]` elements, the others
/// theirs; the result has `Σ counts` positions, and this process's kept elements are the
/// positions after those of the lower ranks. Returns the result's length and, for each
/// process, the range of this process's kept elements (numbered from 0) that it owns.
pub fn filter_destinations(counts: &[usize], rank: usize) -> (usize, Vec<Range<usize>>) {
    let m: usize = counts.iter().sum();
    let first: usize = counts[..rank].iter().sum();
    let mine = first..first + counts[rank];
    let size = counts.len();
    let ranges = (0..size)
        .map(|d| {
            let (lo, hi) = chunk(m, d, size);
            let (from, to) = (lo.max(mine.start), hi.min(mine.end));
            if from < to {
                from - first..to - first
            } else {
                0..0
            }
        })
        .collect();
    (m, ranges)
}

/// The positions a process reading `before` positions before its chunk and `after` after it
/// needs from the others (none when it owns nothing), clipped to the array.
pub fn halo(n: usize, before: usize, after: usize, rank: usize, size: usize) -> [Range<usize>; 2] {
    let (lo, hi) = chunk(n, rank, size);
    if lo == hi {
        return [0..0, 0..0];
    }
    [
        lo.saturating_sub(before)..lo,
        hi..hi.saturating_add(after).min(n),
    ]
}

/// The positions of process `from`'s chunk that process `to` reads as its halo, in order.
pub fn halo_from(
    n: usize,
    before: usize,
    after: usize,
    from: usize,
    to: usize,
    size: usize,
) -> Vec<Range<usize>> {
    if from == to {
        return Vec::new();
    }
    let (lo, hi) = chunk(n, from, size);
    halo(n, before, after, to, size)
        .into_iter()
        .map(|r| r.start.max(lo)..r.end.min(hi))
        .filter(|r| r.start < r.end)
        .collect()
}

/// A permutation of the blocks of a distributed array into another distributed array: block
/// `u` of the source becomes block `target_of(u)` of the target. A position of the source holds
/// `source_blocks` blocks, one of the target `target_blocks` (a transpose of `T ^ M ^ N` moves
/// single elements of rows of `M`; one of `T ^ (A \* B)` moves elements; a reversal moves
/// whole elements).
pub struct BlockPermutation {
    pub blocks: usize,
    pub source_blocks: usize,
    pub target_blocks: usize,
    pub target_of: Box<dyn Fn(usize) -> usize>,
    pub source_of: Box<dyn Fn(usize) -> usize>,
}

impl BlockPermutation {
    /// The transpose of a matrix of `rows` by `columns` blocks (stored row after row): block
    /// `(i, j)` moves to `(j, i)` of the `columns` by `rows` matrix.
    pub fn transpose(
        rows: usize,
        columns: usize,
        source_blocks: usize,
        target_blocks: usize,
    ) -> BlockPermutation {
        BlockPermutation {
            blocks: rows * columns,
            source_blocks,
            target_blocks,
            target_of: Box::new(move |u| (u % columns) * rows + u / columns),
            source_of: Box::new(move |t| (t % rows) * columns + t / rows),
        }
    }

    /// The reversal of `n` positions of one block each: block `u` moves to `n - 1 - u`.
    pub fn reverse(n: usize) -> BlockPermutation {
        BlockPermutation {
            blocks: n,
            source_blocks: 1,
            target_blocks: 1,
            target_of: Box::new(move |u| n - 1 - u),
            source_of: Box::new(move |t| n - 1 - t),
        }
    }

    /// The source's and the target's number of positions.
    fn positions(&self) -> (usize, usize) {
        (
            self.blocks / self.source_blocks.max(1),
            self.blocks / self.target_blocks.max(1),
        )
    }

    /// For each process, the blocks of this process's chunk of the source it sends there, in
    /// the order of the source.
    pub fn sends(&self, rank: usize, size: usize) -> Vec<Vec<usize>> {
        let (n_source, n_target) = self.positions();
        let (lo, hi) = chunk(n_source, rank, size);
        let mut out = vec![Vec::new(); size];
        for u in lo * self.source_blocks..hi * self.source_blocks {
            let t = (self.target_of)(u);
            out[owner(t / self.target_blocks, n_target, size)].push(u);
        }
        out
    }

    /// For each process, the blocks of this process's chunk of the target it receives from
    /// there, in the order that process sends them (the order of the source).
    pub fn receives(&self, rank: usize, size: usize) -> Vec<Vec<usize>> {
        let (n_source, n_target) = self.positions();
        let (lo, hi) = chunk(n_target, rank, size);
        let mut from: Vec<Vec<(usize, usize)>> = vec![Vec::new(); size];
        for t in lo * self.target_blocks..hi * self.target_blocks {
            let u = (self.source_of)(t);
            from[owner(u / self.source_blocks, n_source, size)].push((u, t));
        }
        from.into_iter()
            .map(|mut pairs| {
                pairs.sort_unstable();
                pairs.into_iter().map(|(_, t)| t).collect()
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_owner_of_a_position_is_the_process_whose_chunk_holds_it() {
        for n in 1..40 {
            for size in 1..9 {
                for pos in 0..n {
                    let r = owner(pos, n, size);
                    let (lo, hi) = chunk(n, r, size);
                    assert!(lo <= pos && pos < hi, "n {n} size {size} pos {pos}: {r}");
                }
            }
        }
    }

    #[test]
    fn a_filter_sends_each_kept_element_to_the_owner_of_its_new_position() {
        let counts = [3, 0, 5, 1];
        let m: usize = counts.iter().sum();
        let mut next = 0;
        for rank in 0..counts.len() {
            let (total, ranges) = filter_destinations(&counts, rank);
            assert_eq!(total, m);
            // The ranges cover this process's kept elements once, in order.
            let mut covered = 0;
            for (d, r) in ranges.iter().enumerate() {
                if r.is_empty() {
                    continue;
                }
                assert_eq!(r.start, covered);
                covered = r.end;
                for k in r.clone() {
                    assert_eq!(owner(next + k, m, counts.len()), d);
                }
            }
            assert_eq!(covered, counts[rank]);
            next += counts[rank];
        }
    }

    #[test]
    fn a_halo_is_read_from_whoever_owns_it_even_past_the_neighbours() {
        // Five positions on four processes: chunks [0,1), [1,2), [2,3), [3,5).
        let (n, size) = (5, 4);
        assert_eq!(halo(n, 2, 1, 3, size), [1..3, 5..5]);
        assert_eq!(halo_from(n, 2, 1, 1, 3, size), vec![1..2]);
        assert_eq!(halo_from(n, 2, 1, 2, 3, size), vec![2..3]);
        assert_eq!(halo_from(n, 2, 1, 3, 3, size), Vec::<Range<usize>>::new());
        // A process owning nothing reads nothing.
        assert_eq!(halo(2, 1, 1, 0, 4), [0..0, 0..0]);
        // Every position a process needs comes from exactly one other process.
        for (n, size, before, after) in [(10, 3, 1, 1), (7, 4, 3, 0), (3, 4, 1, 2), (20, 5, 6, 6)] {
            for to in 0..size {
                let mut got: Vec<usize> = (0..size)
                    .flat_map(|from| halo_from(n, before, after, from, to, size))
                    .flatten()
                    .collect();
                got.sort_unstable();
                let want: Vec<usize> = halo(n, before, after, to, size)
                    .into_iter()
                    .flatten()
                    .collect();
                assert_eq!(got, want);
            }
        }
    }

    /// Every block of `p` exchanged on `size` simulated processes: for each target block,
    /// the source block that lands there (each checked to be sent and received in one order).
    fn exchanged(p: &BlockPermutation, size: usize) -> Vec<usize> {
        let sent: Vec<Vec<Vec<usize>>> = (0..size).map(|r| p.sends(r, size)).collect();
        let mut placed = vec![usize::MAX; p.blocks];
        for to in 0..size {
            let received = p.receives(to, size);
            for (from_sent, from_received) in sent.iter().zip(&received) {
                let blocks = &from_sent[to];
                assert_eq!(blocks.len(), from_received.len());
                for (&u, &t) in blocks.iter().zip(from_received) {
                    assert_eq!((p.target_of)(u), t);
                    assert_eq!(placed[t], usize::MAX, "block {t} received twice");
                    placed[t] = u;
                }
            }
        }
        placed
    }

    #[test]
    fn a_transpose_sends_and_receives_the_same_blocks_in_the_same_order() {
        // A 3 x 5 matrix of elements, and 4 rows of 3 blocks as an array of arrays.
        for (rows, columns, source_blocks, target_blocks) in [(3, 5, 1, 1), (4, 3, 3, 4)] {
            for size in 1..7 {
                let p = BlockPermutation::transpose(rows, columns, source_blocks, target_blocks);
                // Target (j, i) holds source (i, j).
                for (t, &u) in exchanged(&p, size).iter().enumerate() {
                    assert_eq!(u, (t % rows) * columns + t / rows);
                }
            }
        }
    }

    #[test]
    fn a_reversal_places_every_position_at_its_mirror_image() {
        for n in [1, 2, 3, 7, 10, 33] {
            for size in 1..=9 {
                let p = BlockPermutation::reverse(n);
                for (t, &u) in exchanged(&p, size).iter().enumerate() {
                    assert_eq!(u, n - 1 - t, "{n} positions on {size} processes");
                }
            }
        }
    }
}
