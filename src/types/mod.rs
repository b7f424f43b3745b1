//! The type algebra: one `Type` for checker, IR and evaluator; kinds,
//! sizes, mixed-radix layouts, the isomorphism engine behind `:>>`, and type printing.
//!
//! Architecture invariant: pure functions of types; no IO, no knowledge of values. Of the syntax
//! it knows only the pointer modes a pointer type carries (`syntax::ast::PtrMode`), so the
//! dependency between the two points one way: `types` uses `syntax`, never the reverse.

pub mod distribution;
pub mod iso;
pub mod kind;
pub mod layout;
pub mod print;
pub mod shape;
pub mod size;
pub mod subtype;
pub mod ty;
pub mod visibility;

#[cfg(test)]
mod calculus_tests;
#[cfg(test)]
mod props_tests;
#[cfg(test)]
mod system_tests;

#[cfg(test)]
pub use ty::Kind;
pub use ty::{IntTy, Type};
