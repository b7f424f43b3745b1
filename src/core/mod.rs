//! The typed IR between the checker and the evaluator.
pub mod doc;
pub mod inline;
pub mod ir;
pub mod prims;
pub mod print;
pub mod printf;
pub mod selfcall;
pub mod subst;
pub mod tailcall;
pub mod validate;
pub mod visit;
