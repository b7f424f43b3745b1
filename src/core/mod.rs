//! The typed IR between the checker and the evaluator.
pub mod constants;
pub mod doc;
pub mod inline;
pub mod ir;
pub mod moves;
pub mod prims;
pub mod print;
pub mod printf;
pub mod ranges;
pub mod selfcall;
pub mod subst;
pub mod tailcall;
pub mod validate;
pub mod visit;

#[cfg(test)]
mod tests {
    /// The IR of `src`'s functions (checked without the prelude), as `print` writes it: what
    /// the passes' tests look at.
    pub(crate) fn checked_ir(src: &str) -> String {
        let stmts =
            crate::parse_program_or_errors(src, Default::default()).expect("the program parses");
        let unit = crate::check::Checker::new()
            .check_program(&stmts)
            .expect("the program checks");
        super::print::unit(&unit)
    }
}
