//! The type algebra (spec L2, L3, L9.1): one `Type` for checker, IR and evaluator; kinds,
//! sizes, mixed-radix layouts, the isomorphism engine behind `:>>`, and type printing.
//!
//! Architecture invariant: pure functions of types; no IO, no knowledge of syntax or values.

pub mod iso;
pub mod kind;
pub mod layout;
pub mod print;
pub mod size;
pub mod subtype;
pub mod ty;

#[cfg(test)]
mod calculus_tests;
#[cfg(test)]
mod props_tests;
#[cfg(test)]
mod system_tests;

#[cfg(test)]
pub use ty::Kind;
pub use ty::{IntTy, Type};
