//! The arithmetic of `sort` of a distributed array (a sample sort). Every element has an
//! *order key* (`order_key`), an unsigned integer whose order is the sort's order of the
//! elements: equal keys are equivalent elements, which keep their order (the sort is stable).
//! An element is identified by its key and its position, `(key, position)`, all distinct:
//!
//! 1. each process sorts its `(key, position)` pairs and picks `OVERSAMPLE·p` of them at
//!    regular intervals (`samples`);
//! 2. the samples of all processes, gathered, sorted, give `p - 1` splitters at regular
//!    intervals (`splitters`), the same on every process;
//! 3. each process sends its elements between splitters `d - 1` and `d` to process `d`
//!    (`buckets`), in order, one all-to-all exchange; process `d` sorts what it received by key,
//!    stably, the senders in rank order, so equal keys stay in the order of their positions;
//! 4. the runs, in rank order, are the sorted array; a second exchange gives each process the
//!    positions it owns (as `filter` does).
//!
//! The splitters decide only how the work is shared: the result is the stable sort by key
//! on any number of processes.

use std::ops::Range;

/// The samples each process draws per process of the world.
pub const OVERSAMPLE: usize = 16;

/// The order key of an integer element of value `v`: signed values in their order.
pub fn signed_key(v: i64) -> u64 {
    (v as u64) ^ (1 << 63)
}

/// The order key of a floating element: numbers by `<`, with `-0.0` equal to `0.0`, and every
/// NaN after every number (all NaNs equal).
pub fn float_key(x: f64) -> u64 {
    if x.is_nan() {
        return u64::MAX;
    }
    let bits = if x == 0.0 { 0 } else { x.to_bits() };
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | (1 << 63)
    }
}

/// Step 1: the samples of a process's `sorted` pairs.
pub fn samples(sorted: &[(u64, u64)], size: usize) -> Vec<(u64, u64)> {
    let m = sorted.len();
    let s = m.min(OVERSAMPLE * size);
    (0..s).map(|j| sorted[j * m / s]).collect()
}

/// Step 2: the `size - 1` splitters of all processes' samples (none when there are none).
pub fn splitters(mut all: Vec<(u64, u64)>, size: usize) -> Vec<(u64, u64)> {
    all.sort_unstable();
    if all.is_empty() {
        return Vec::new();
    }
    (1..size).map(|d| all[d * all.len() / size]).collect()
}

/// Step 3: for each process, the range of this process's `sorted` pairs it sends there: to
/// process `d` those above splitter `d - 1` and up to splitter `d` (all to process 0 without
/// splitters).
pub fn buckets(sorted: &[(u64, u64)], splitters: &[(u64, u64)], size: usize) -> Vec<Range<usize>> {
    let mut bounds = vec![0];
    for s in splitters {
        bounds.push(sorted.partition_point(|x| x <= s));
    }
    while bounds.len() < size {
        bounds.push(sorted.len());
    }
    bounds.push(sorted.len());
    bounds.windows(2).map(|w| w[0]..w[1]).collect()
}

#[cfg(test)]
mod tests {
    use super::super::chunk;
    use super::*;

    /// The sample sort of `keys` on `p` simulated processes: the positions of the elements in
    /// sorted order (the runs of the processes, in rank order).
    fn sample_sort(keys: &[u64], p: usize) -> Vec<usize> {
        let n = keys.len();
        let sorted: Vec<Vec<(u64, u64)>> = (0..p)
            .map(|r| {
                let (lo, hi) = chunk(n, r, p);
                let mut mine: Vec<(u64, u64)> = (lo..hi).map(|i| (keys[i], i as u64)).collect();
                mine.sort_unstable();
                mine
            })
            .collect();
        let all: Vec<(u64, u64)> = sorted.iter().flat_map(|s| samples(s, p)).collect();
        let split = splitters(all, p);
        let sent: Vec<Vec<Range<usize>>> = sorted.iter().map(|s| buckets(s, &split, p)).collect();
        let mut out = Vec::new();
        for d in 0..p {
            // Received in rank order, then sorted by key only, stably.
            let mut run: Vec<(u64, u64)> = (0..p)
                .flat_map(|r| sorted[r][sent[r][d].clone()].iter().copied())
                .collect();
            run.sort_by_key(|x| x.0);
            out.extend(run.into_iter().map(|x| x.1 as usize));
        }
        out
    }

    /// The stable sort's order of `keys`.
    fn stable(keys: &[u64]) -> Vec<usize> {
        let mut order: Vec<usize> = (0..keys.len()).collect();
        order.sort_by_key(|&i| keys[i]);
        order
    }

    #[test]
    fn a_sample_sort_is_the_stable_sort_on_any_number_of_processes() {
        let mut state = 17u64;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state >> 33
        };
        for n in [0, 1, 2, 5, 100, 1000, 4099] {
            // Few distinct keys (long runs of equal ones), many, all equal, sorted, reversed.
            let few: Vec<u64> = (0..n).map(|_| next() % 3).collect();
            let many: Vec<u64> = (0..n).map(|_| next()).collect();
            let same = vec![7; n];
            let up: Vec<u64> = (0..n as u64).collect();
            let down: Vec<u64> = (0..n as u64).rev().collect();
            for keys in [few, many, same, up, down] {
                for p in 1..=9 {
                    assert_eq!(sample_sort(&keys, p), stable(&keys), "{n} keys on {p}");
                }
            }
        }
    }

    #[test]
    fn order_keys_order_numbers_as_the_sort_does() {
        let xs = [
            f64::NEG_INFINITY,
            -1e300,
            -1.5,
            -f64::MIN_POSITIVE,
            0.0,
            f64::MIN_POSITIVE,
            2.0,
            f64::INFINITY,
            f64::NAN,
        ];
        for w in xs.windows(2) {
            assert!(float_key(w[0]) < float_key(w[1]), "{} {}", w[0], w[1]);
        }
        assert_eq!(float_key(-0.0), float_key(0.0));
        assert_eq!(float_key(-f64::NAN), float_key(f64::NAN));
        let ints = [i64::MIN, -3, -1, 0, 1, i64::MAX];
        for w in ints.windows(2) {
            assert!(signed_key(w[0]) < signed_key(w[1]));
        }
    }
}
