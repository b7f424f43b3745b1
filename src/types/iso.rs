//! The isomorphism engine behind `:>>` (L9.1): normal forms and classification.
