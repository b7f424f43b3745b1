//! `CowVec`: a vector whose clones share their elements until one is changed.
//!
//! The checker's session state (scopes, frames, signatures, inference variables) grows with
//! every unit, and a unit is checked against a snapshot it can go back to (a failed REPL
//! chunk leaves no definitions; a failed overload is undone). In a `CowVec` a snapshot costs
//! a pointer per block of elements, and a change copies only the block it touches.

use std::ops::{Index, IndexMut};
use std::sync::Arc;

/// Elements per shared block.
const BLOCK: usize = 64;

/// Blocks per shared group.
const GROUP: usize = 64;

/// A vector of `T` in shared blocks of `BLOCK` elements, themselves in shared groups of
/// `GROUP` blocks (see the module comment): a clone copies one pointer per `BLOCK * GROUP`
/// elements, so snapshots taken once per overload candidate stay cheap however many
/// elements a long unit has made.
#[derive(Clone, Debug)]
pub(crate) struct CowVec<T> {
    groups: Vec<Arc<Vec<Arc<Vec<T>>>>>,
    len: usize,
}

impl<T> Default for CowVec<T> {
    fn default() -> Self {
        CowVec {
            groups: Vec::new(),
            len: 0,
        }
    }
}

impl<T: Clone> CowVec<T> {
    pub(crate) fn new() -> Self {
        CowVec::default()
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn push(&mut self, value: T) {
        if self.len.is_multiple_of(BLOCK * GROUP) {
            self.groups.push(Arc::new(Vec::with_capacity(GROUP)));
        }
        let group = Arc::make_mut(self.groups.last_mut().expect("a group"));
        if self.len.is_multiple_of(BLOCK) {
            group.push(Arc::new(Vec::with_capacity(BLOCK)));
        }
        Arc::make_mut(group.last_mut().expect("a block")).push(value);
        self.len += 1;
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> {
        self.groups
            .iter()
            .flat_map(|group| group.iter())
            .flat_map(|block| block.iter())
    }
}

impl<T: Clone> FromIterator<T> for CowVec<T> {
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Self {
        let mut vec = CowVec::new();
        for item in items {
            vec.push(item);
        }
        vec
    }
}

impl<T> Index<usize> for CowVec<T> {
    type Output = T;

    #[inline]
    fn index(&self, index: usize) -> &T {
        &self.groups[index / (BLOCK * GROUP)][(index / BLOCK) % GROUP][index % BLOCK]
    }
}

impl<T: Clone> IndexMut<usize> for CowVec<T> {
    /// The element, its group and block copied first when a clone shares them.
    #[inline]
    fn index_mut(&mut self, index: usize) -> &mut T {
        let group = Arc::make_mut(&mut self.groups[index / (BLOCK * GROUP)]);
        &mut Arc::make_mut(&mut group[(index / BLOCK) % GROUP])[index % BLOCK]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clone_keeps_its_values_when_the_original_changes() {
        let mut original: CowVec<u32> = (0..200).collect();
        let snapshot = original.clone();
        original[3] = 1000;
        original[150] = 2000;
        original.push(200);
        assert_eq!(
            (original[3], original[150], original.len()),
            (1000, 2000, 201)
        );
        assert_eq!((snapshot[3], snapshot[150], snapshot.len()), (3, 150, 200));
        assert!(snapshot.iter().copied().eq(0..200));
        // Only the blocks that changed were copied.
        assert!(Arc::ptr_eq(&original.groups[0][1], &snapshot.groups[0][1]));
        assert!(!Arc::ptr_eq(&original.groups[0][0], &snapshot.groups[0][0]));
    }

    #[test]
    fn groups_of_blocks_are_shared_and_copied_alone() {
        let n = 3 * BLOCK * GROUP + 5;
        let mut original: CowVec<usize> = (0..n).collect();
        let snapshot = original.clone();
        original[BLOCK * GROUP + 7] = 0;
        original.push(n);
        assert!(snapshot.iter().copied().eq(0..n));
        assert_eq!(
            (original[BLOCK * GROUP + 7], original[n], original.len()),
            (0, n, n + 1)
        );
        assert!(Arc::ptr_eq(&original.groups[0], &snapshot.groups[0]));
        assert!(Arc::ptr_eq(&original.groups[2], &snapshot.groups[2]));
        assert!(!Arc::ptr_eq(&original.groups[1], &snapshot.groups[1]));
        assert!(Arc::ptr_eq(&original.groups[1][1], &snapshot.groups[1][1]));
        assert!(!Arc::ptr_eq(&original.groups[1][0], &snapshot.groups[1][0]));
    }
}
