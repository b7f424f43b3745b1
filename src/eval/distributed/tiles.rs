//! Folds and scans of a distributed array by a function `f : T -> T -> T` taken to be
//! associative, defined on the tiles of `TILE` positions of the linear index so that the result
//! does not depend on the number of processes:
//!
//! - the *in-tile* values: each tile folded left from its first element (`x0`, `f x0 x1`,
//!   `f (f x0 x1) x2`, …); the last is the tile's *total*;
//! - a fold is the fixed pairwise tree over the totals (the left half's with the right half's,
//!   as `\sum` of floating values), then `f init` of it when there is an `init`;
//! - a scan's *prefix* of tile `t` is `init` for the first tile and `f p total` (`p` the
//!   previous tile's prefix, `total` its total) for the next ones, from left to right; the
//!   scan at a position is `f prefix v`, `v` its in-tile value;
//! - a right fold or scan (`fold_right`, `scan_right`) is the left one of the mirror image, on
//!   the mirror images of the same tiles (`Chunk::mirrored`), by `f` with its operands swapped:
//!   each tile folded from its last element, the tiles combined right to left.
//!
//! The work runs in three steps, with an exchange between them: (1) each process sends the
//! elements of the tile it holds only a tail of (its *head*: a tile whose first position a
//! lower rank holds); (2) the process holding a tile's first position folds the tile, from its
//! own elements and the heads of the next ranks, and sends its total (and for a scan the
//! in-tile values at the positions the next ranks hold); (3) every process computes the tree
//! (or the prefixes) of all totals, then a scan its own positions. One process runs the same
//! steps with itself as the world. A fault in `f` stops a process in the step it meets it in:
//! in step (2) and (3) a process meets its positions in order and the ranks hold the positions
//! in order, so the lowest rank that meets a fault has the lowest position of it, as the
//! single process reports it; the tree and the prefixes every process computes alike. (For a
//! right fold the ranks hold the mirror image's positions in the opposite order: when `f`
//! faults on several processes, the lowest rank reports its own, the last of them in the
//! single process's order.)

use std::ops::Range;

use super::{wire, TILE};
use crate::eval::error::Fault;
use crate::eval::value::Value;

/// The positions `lo..hi` one process holds of an array of `n`, and where the array's tiles
/// begin: at the positions `p` with `p + shift` a multiple of `TILE` (and at 0). A left fold
/// has `shift` 0; a right fold runs as a left fold of the mirror image (position `p` at
/// `n - 1 - p`), whose tiles are the mirror images of the left fold's (`Chunk::mirrored`).
#[derive(Clone, Copy, Debug)]
pub struct Chunk {
    /// The positions of the array.
    pub n: usize,
    /// The first position this process holds.
    pub lo: usize,
    /// The end of the positions this process holds.
    pub hi: usize,
    /// How far before position 0 the first tile would begin (below `TILE`).
    pub shift: usize,
}

/// Values (elements, or in-tile values) of tile `tile` at the positions from `from` on.
#[derive(Clone, Debug, PartialEq)]
pub struct Piece<V> {
    /// The tile.
    pub tile: usize,
    /// The position of the first value.
    pub from: usize,
    /// The values, at consecutive positions.
    pub values: Vec<V>,
}

/// A tile folded by the process that holds its first position: its total, and (for a scan)
/// its in-tile values at the positions the next ranks hold (`rest.from` on).
#[derive(Clone, Debug, PartialEq)]
pub struct Folded<V> {
    /// The tile's fold from its first element.
    pub total: V,
    /// The in-tile values at the positions the next ranks hold (none for a fold).
    pub rest: Piece<V>,
}

impl Chunk {
    /// Positions `lo..hi` of `n`, tiled from position 0.
    pub fn new(n: usize, lo: usize, hi: usize) -> Chunk {
        Chunk {
            n,
            lo,
            hi,
            shift: 0,
        }
    }

    /// The mirror image of positions `lo..hi` of `n` (`n - hi..n - lo`), tiled so that each
    /// tile is the mirror image of a tile of `Chunk::new(n, …)`.
    pub fn mirrored(n: usize, lo: usize, hi: usize) -> Chunk {
        Chunk {
            n,
            lo: n - hi,
            hi: n - lo,
            shift: (TILE - n % TILE) % TILE,
        }
    }

    /// The tile of position `pos`.
    fn tile_of(&self, pos: usize) -> usize {
        (pos + self.shift) / TILE
    }

    /// The first tile that begins at or after `pos`.
    fn first_tile_from(&self, pos: usize) -> usize {
        if pos == 0 {
            0
        } else {
            (pos + self.shift).div_ceil(TILE)
        }
    }

    fn tile_start(&self, tile: usize) -> usize {
        (tile * TILE).saturating_sub(self.shift)
    }

    fn tile_end(&self, tile: usize) -> usize {
        ((tile + 1) * TILE - self.shift).min(self.n)
    }

    /// The tiles whose first position this process holds.
    pub fn starts(&self) -> Range<usize> {
        if self.lo == self.hi {
            return 0..0;
        }
        self.first_tile_from(self.lo)..self.first_tile_from(self.hi)
    }

    /// Where the positions of the tiles this process starts begin (`hi` when it starts none).
    fn first_start(&self) -> usize {
        self.tile_start(self.starts().start).clamp(self.lo, self.hi)
    }

    /// Step (1): this process's elements (`values`, positions `lo..hi`) of a tile a lower rank
    /// starts.
    pub fn head<V: Clone>(&self, values: &[V]) -> Vec<Piece<V>> {
        let end = self.first_start();
        if self.lo == end {
            return Vec::new();
        }
        vec![Piece {
            tile: self.tile_of(self.lo),
            from: self.lo,
            values: values[..end - self.lo].to_vec(),
        }]
    }

    /// Step (2): the tiles this process starts, folded from its `values` and the `heads` of
    /// every process; with `scan`, also this process's in-tile values of them
    /// (its positions from the first tile it starts).
    pub fn fold_tiles<V: Clone, E>(
        &self,
        values: &[V],
        heads: &[Piece<V>],
        scan: bool,
        f: &mut impl FnMut(V, V) -> Result<V, E>,
    ) -> Result<(Vec<Folded<V>>, Vec<V>), E> {
        let mut folded = Vec::new();
        let mut mine = Vec::new();
        for tile in self.starts() {
            let (start, end) = (self.tile_start(tile), self.tile_end(tile));
            let own_end = end.min(self.hi);
            // The pieces in the order of their positions (for a mirror image, the ranks hold
            // them in the opposite order).
            let mut others: Vec<&Piece<V>> = heads.iter().filter(|p| p.tile == tile).collect();
            others.sort_by_key(|p| p.from);
            let others = others.into_iter().flat_map(|p| p.values.iter());
            let mut elements = values[start - self.lo..own_end - self.lo]
                .iter()
                .chain(others)
                .cloned();
            let mut acc = elements.next().expect("a tile is never empty");
            let mut rest = Vec::new();
            if scan {
                mine.push(acc.clone());
            }
            for (at, x) in (start + 1..).zip(elements) {
                acc = f(acc, x)?;
                if scan {
                    let into = if at < own_end { &mut mine } else { &mut rest };
                    into.push(acc.clone());
                }
            }
            folded.push(Folded {
                total: acc,
                rest: Piece {
                    tile,
                    from: own_end,
                    values: rest,
                },
            });
        }
        Ok((folded, mine))
    }

    /// Step (3) of a scan: this process's values, from every tile's `folded` (in tile order),
    /// its in-tile values `mine` of the tiles it starts, and `init`.
    pub fn scan<V: Clone, E>(
        &self,
        init: V,
        folded: &[Folded<V>],
        mine: Vec<V>,
        f: &mut impl FnMut(V, V) -> Result<V, E>,
    ) -> Result<Vec<V>, E> {
        if self.lo == self.hi {
            return Ok(Vec::new());
        }
        let mut prefixes = Vec::with_capacity(folded.len());
        let mut prefix = init;
        for (tile, t) in folded.iter().enumerate() {
            prefixes.push(prefix.clone());
            // Every process computes every prefix, so that they all meet a fault in one.
            if tile + 1 < folded.len() {
                prefix = f(prefix, t.total.clone())?;
            }
        }
        let head_end = self.first_start();
        let head = (self.lo < head_end).then(|| {
            let rest = &folded[self.tile_of(self.lo)].rest;
            rest.values[self.lo - rest.from..head_end - rest.from].to_vec()
        });
        let mut out = Vec::with_capacity(self.hi - self.lo);
        let in_tile = head.into_iter().flatten().chain(mine);
        for (at, v) in (self.lo..).zip(in_tile) {
            out.push(f(prefixes[self.tile_of(at)].clone(), v)?);
        }
        Ok(out)
    }
}

/// Step (3) of a fold: the totals combined pairwise, the left half's with the right half's,
/// down to one value (`None` for no tiles).
pub fn tree<V: Clone, E>(
    totals: &[V],
    f: &mut impl FnMut(V, V) -> Result<V, E>,
) -> Result<Option<V>, E> {
    match totals.len() {
        0 => Ok(None),
        1 => Ok(Some(totals[0].clone())),
        k => {
            let (l, r) = totals.split_at(k / 2);
            let l = tree(l, f)?.expect("not empty");
            let r = tree(r, f)?.expect("not empty");
            f(l, r).map(Some)
        }
    }
}

/// Every process's pieces, in rank order, on every process; `None` when one holds a value
/// that does not travel between processes (a function, a pointer: `wire`). One process keeps
/// its own, whatever they hold.
pub fn gather_pieces(mine: Vec<Piece<Value>>) -> Result<Option<Vec<Piece<Value>>>, Fault> {
    if super::world().1 == 1 {
        return Ok(Some(mine));
    }
    // Each piece: its tile, its first position and its number of values, then the values.
    let mut bytes = Vec::new();
    let mut travels = true;
    for p in &mine {
        for word in [p.tile, p.from, p.values.len()] {
            bytes.extend_from_slice(&(word as u64).to_le_bytes());
        }
        for v in &p.values {
            travels &= wire::encode_value(v, &mut bytes).is_ok();
        }
    }
    // Every process learns whether all pieces travel, so all give up together.
    if super::super::exchange::gather_counts(usize::from(travels))?.contains(&0) {
        return Ok(None);
    }
    let all = super::gather_bytes(&bytes)?;
    let word = |b: &[u8], at: usize| -> Result<usize, Fault> {
        b.get(at..at + 8)
            .map(|w| u64::from_le_bytes(w.try_into().expect("eight bytes")) as usize)
            .ok_or_else(|| Fault::new(crate::eval::error::INTERNAL, "a piece ended early"))
    };
    let mut out = Vec::new();
    for bytes in all {
        let mut at = 0;
        while at < bytes.len() {
            let (tile, from, count) = (
                word(&bytes, at)?,
                word(&bytes, at + 8)?,
                word(&bytes, at + 16)?,
            );
            let (values, read) = wire::decode_values(&bytes[at + 24..], count)?;
            out.push(Piece { tile, from, values });
            at += 24 + read;
        }
    }
    Ok(Some(out))
}

/// Every process's folded tiles, in tile order, on every process; `None` as for
/// `gather_pieces`.
pub fn gather_folded(mine: Vec<Folded<Value>>) -> Result<Option<Vec<Folded<Value>>>, Fault> {
    if super::world().1 == 1 {
        return Ok(Some(mine));
    }
    let pieces = mine
        .into_iter()
        .map(|f| {
            let mut values = vec![f.total];
            values.extend(f.rest.values);
            Piece {
                tile: f.rest.tile,
                from: f.rest.from,
                values,
            }
        })
        .collect();
    let Some(all) = gather_pieces(pieces)? else {
        return Ok(None);
    };
    let mut folded: Vec<Folded<Value>> = all
        .into_iter()
        .map(|mut p| {
            let total = p.values.remove(0);
            Folded { total, rest: p }
        })
        .collect();
    // The ranks hold a mirror image's tiles in the opposite order.
    folded.sort_by_key(|f| f.rest.tile);
    Ok(Some(folded))
}

#[cfg(test)]
mod tests {
    use super::super::chunk;
    use super::*;

    /// A fold or scan of `values` by `f` on `p` simulated processes: each process's steps,
    /// with every exchange handing all processes' messages to each. `init` makes it a scan
    /// (the concatenated values of the processes) or a fold (the tree, one value).
    fn on_processes<V: Clone>(
        values: &[V],
        p: usize,
        init: Option<V>,
        f: &mut impl FnMut(V, V) -> Result<V, String>,
    ) -> Result<Vec<V>, String> {
        tiled(values, p, false, init, f)
    }

    /// `on_processes`, or with `right` the right fold or scan (`f x acc`) as the kernels run
    /// it: a left one of the mirror image, by `f` with its operands swapped, its values
    /// mirrored back.
    fn tiled<V: Clone>(
        values: &[V],
        p: usize,
        right: bool,
        init: Option<V>,
        f: &mut impl FnMut(V, V) -> Result<V, String>,
    ) -> Result<Vec<V>, String> {
        let n = values.len();
        let mut g = |acc: V, x: V| if right { f(x, acc) } else { f(acc, x) };
        let chunks: Vec<Chunk> = (0..p)
            .map(|r| {
                let (lo, hi) = chunk(n, r, p);
                if right {
                    Chunk::mirrored(n, lo, hi)
                } else {
                    Chunk::new(n, lo, hi)
                }
            })
            .collect();
        let mirror: Vec<V> = values.iter().rev().cloned().collect();
        let values = if right { &mirror[..] } else { values };
        let own = |c: &Chunk| &values[c.lo..c.hi];
        let heads: Vec<Piece<V>> = chunks.iter().flat_map(|c| c.head(own(c))).collect();
        let mut folded = Vec::new();
        let mut mine = Vec::new();
        for c in &chunks {
            let (f_, m) = c.fold_tiles(own(c), &heads, init.is_some(), &mut g)?;
            folded.extend(f_);
            mine.push(m);
        }
        folded.sort_by_key(|t| t.rest.tile);
        let Some(init) = init else {
            let totals: Vec<V> = folded.into_iter().map(|t| t.total).collect();
            return Ok(tree(&totals, &mut g)?.into_iter().collect());
        };
        let mut out = Vec::new();
        for (c, m) in chunks.iter().zip(mine) {
            let mut scanned = c.scan(init.clone(), &folded, m, &mut g)?;
            if right {
                scanned.reverse();
            }
            out.extend(scanned);
        }
        Ok(out)
    }

    /// Values whose sums depend on the order of the additions.
    fn awkward(n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| ((i * 7919) % 1000) as f64 * 1e-3 + if i % 97 == 0 { 1e12 } else { 0.0 })
            .collect()
    }

    fn add(a: f64, b: f64) -> Result<f64, String> {
        Ok(a + b)
    }

    #[test]
    fn a_floating_fold_and_scan_have_the_same_bits_on_any_number_of_processes() {
        for n in [0, 1, 5, TILE - 1, TILE, TILE + 1, 3 * TILE + 123] {
            let values = awkward(n);
            let fold = on_processes(&values, 1, None, &mut add).unwrap();
            let scan = on_processes(&values, 1, Some(0.25), &mut add).unwrap();
            assert_eq!(scan.len(), n);
            for p in 2..=9 {
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                let many = on_processes(&values, p, None, &mut add).unwrap();
                assert_eq!(bits(&many), bits(&fold), "fold of {n} on {p}");
                let many = on_processes(&values, p, Some(0.25), &mut add).unwrap();
                assert_eq!(bits(&many), bits(&scan), "scan of {n} on {p}");
            }
        }
    }

    #[test]
    fn the_floating_fold_by_addition_is_the_tiled_sum() {
        let values = awkward(3 * TILE + 123);
        let fold = on_processes(&values, 4, None, &mut add).unwrap();
        let sum = super::super::reduce_float(
            &values,
            0,
            values.len(),
            crate::core::ir::ArithOp::Add,
            false,
        )
        .unwrap();
        assert_eq!(fold[0].to_bits(), sum.to_bits());
    }

    #[test]
    fn an_associative_scan_is_the_sequential_one() {
        // Integer addition and a non-commutative associative function (string concatenation).
        let ints: Vec<i64> = (0..2 * TILE as i64 + 77)
            .map(|i| i * 31 % 1009 - 500)
            .collect();
        let sequential: Vec<i64> = ints
            .iter()
            .scan(7, |s, x| {
                *s += x;
                Some(*s)
            })
            .collect();
        let words: Vec<String> = (0..TILE + 9).map(|i| (i % 10).to_string()).collect();
        let mut concat = |a: String, b: String| Ok::<_, String>(a + &b);
        for p in 1..=5 {
            let many = on_processes(&ints, p, Some(7), &mut |a, b| Ok(a + b)).unwrap();
            assert_eq!(many, sequential, "{p} processes");
            let total = on_processes(&words, p, None, &mut concat).unwrap();
            assert_eq!(total, vec![words.concat()], "{p} processes");
        }
    }

    #[test]
    fn right_folds_and_scans_run_on_the_mirrored_tiles() {
        // The mirror image's tiles are the left fold's tiles, mirrored.
        for n in [1, 5, TILE, TILE + 1, 3 * TILE + 123] {
            let c = Chunk::mirrored(n, 0, n);
            let mut bounds: Vec<(usize, usize)> = c
                .starts()
                .map(|t| (n - c.tile_end(t), n - c.tile_start(t)))
                .collect();
            bounds.reverse();
            let left = Chunk::new(n, 0, n);
            let want: Vec<(usize, usize)> = left
                .starts()
                .map(|t| (left.tile_start(t), left.tile_end(t)))
                .collect();
            assert_eq!(bounds, want, "{n} positions");
        }
        // The same bits on any number of processes, and with an associative function the
        // sequential right fold and scan (a non-commutative one: string concatenation).
        for n in [0, 1, 5, TILE - 1, TILE + 1, 2 * TILE + 77] {
            let values = awkward(n);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            let fold = tiled(&values, 1, true, None, &mut add).unwrap();
            let scan = tiled(&values, 1, true, Some(0.25), &mut add).unwrap();
            assert_eq!(scan.len(), n);
            let words: Vec<String> = (0..n).map(|i| (i % 10).to_string()).collect();
            let mut concat = |a: String, b: String| Ok::<_, String>(a + &b);
            let suffixes: Vec<String> = (0..n).map(|i| words[i..].concat() + "!").collect();
            for p in 1..=9 {
                let many = tiled(&values, p, true, None, &mut add).unwrap();
                assert_eq!(bits(&many), bits(&fold), "fold of {n} on {p}");
                let many = tiled(&values, p, true, Some(0.25), &mut add).unwrap();
                assert_eq!(bits(&many), bits(&scan), "scan of {n} on {p}");
                let total = tiled(&words, p, true, None, &mut concat).unwrap();
                assert_eq!(total.concat(), words.concat(), "{n} on {p}");
                let scanned = tiled(&words, p, true, Some("!".to_string()), &mut concat);
                assert_eq!(scanned.unwrap(), suffixes, "{n} on {p}");
            }
        }
    }

    #[test]
    fn the_fault_met_first_is_the_one_at_the_lowest_position() {
        // `f` fails on a negative element (in-tile values, totals and prefixes are not
        // negative): the first failure of each process, the lowest rank's first, is the
        // single process's.
        let values: Vec<i64> = (0..3 * TILE as i64).map(|i| i % 13).collect();
        let mut bad = values.clone();
        bad[TILE + 5] = -1;
        bad[2 * TILE + 1] = -2;
        let mut f = |a: i64, b: i64| {
            if b < 0 {
                Err(format!("{b}"))
            } else {
                Ok(a + b)
            }
        };
        for p in 1..=4 {
            assert_eq!(
                on_processes(&bad, p, Some(0), &mut f),
                Err("-1".to_string())
            );
            assert_eq!(on_processes(&bad, p, None, &mut f), Err("-1".to_string()));
        }
        assert!(on_processes(&values, 3, None, &mut f).is_ok());
    }
}
