//! Function values.

/// A function value (a compiled function instance with its captures, possibly partially
/// applied). Defined by the evaluator.
#[derive(Debug)]
pub struct Closure {}
