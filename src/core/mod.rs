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
        super::print::unit(&checked_unit(src))
    }

    /// The unit of `src` (checked without the prelude).
    pub(crate) fn checked_unit(src: &str) -> super::ir::Unit {
        let stmts =
            crate::parse_program_or_errors(src, Default::default()).expect("the program parses");
        crate::check::Checker::new()
            .check_program(&stmts)
            .expect("the program checks")
    }

    /// The name of the global `slot` of `unit`.
    pub(crate) fn global_name(unit: &super::ir::Unit, slot: super::ir::Slot) -> String {
        let def = unit.globals.iter().find(|d| d.slot == slot);
        def.expect("a global").name.clone()
    }
}
