//! The typed IR between the checker and the evaluator.
pub mod ir;
pub mod prims;
pub mod printf;
pub mod subst;
pub mod validate;
