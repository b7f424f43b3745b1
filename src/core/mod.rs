//! The typed IR between the checker and the evaluator.
pub mod ir;
<<<<<<< HEAD
pub mod validate;
=======
pub mod subst;
>>>>>>> eval
