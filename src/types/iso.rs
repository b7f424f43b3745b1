//! The isomorphism engine behind `:>>` (L9.1): normal forms and classification.

// TEMP stub (the types branch provides this; this commit is to be dropped at merge).
pub fn iso_line(a: &crate::types::Type, b: &crate::types::Type) -> String {
    let _ = (a, b);
    todo!("iso")
}
