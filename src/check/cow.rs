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

/// A vector of `T` in shared blocks of `BLOCK` elements (see the module comment).
#[derive(Clone, Debug)]
pub(crate) struct CowVec<T> {
    blocks: Vec<Arc<Vec<T>>>,
    len: usize,
}

impl<T> Default for CowVec<T> {
    fn default() -> Self {
        CowVec {
            blocks: Vec::new(),
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
        if self.len.is_multiple_of(BLOCK) {
            self.blocks.push(Arc::new(Vec::with_capacity(BLOCK)));
        }
        if let Some(last) = self.blocks.last_mut() {
            Arc::make_mut(last).push(value);
        }
        self.len += 1;
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &T> {
        self.blocks.iter().flat_map(|block| block.iter())
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
        &self.blocks[index / BLOCK][index % BLOCK]
    }
}

impl<T: Clone> IndexMut<usize> for CowVec<T> {
    /// The element, its block copied first when a clone shares it.
    #[inline]
    fn index_mut(&mut self, index: usize) -> &mut T {
        &mut Arc::make_mut(&mut self.blocks[index / BLOCK])[index % BLOCK]
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
        assert!(Arc::ptr_eq(&original.blocks[1], &snapshot.blocks[1]));
        assert!(!Arc::ptr_eq(&original.blocks[0], &snapshot.blocks[0]));
    }
}
