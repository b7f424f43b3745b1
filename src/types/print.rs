//! Printing types in the spec's own syntax.
//!
//! Binary operators get one space on each side. An operand is parenthesised when it is itself
//! an operator type that binds no tighter than its parent, except that `^`/`\^` chain to the
//! left (`int ^ 2 ^ 3`) and `->` to the right (`int -> int -> int`). An array index that is an
//! operator type is always parenthesised. The unitsums 0, 1 and 2 print as `void`, `unit` and
//! `bool`, except as an operand of `\*`, `\+`, `\^` or as an array index, where they print as
//! numbers.
//!
//! Architecture invariant: printing never fails and never consults anything but the type (and
//! the width limit of `--max-type-width`, past which the rest of a type is elided as `…`).

use crate::syntax::ast::PtrMode;
use crate::types::ty::Type;

/// The place a type occupies inside its parent type, which decides its parentheses and
/// whether the unitsums 0, 1 and 2 print as numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OperandSlot {
    /// The whole type: no parent.
    Top,
    FunArgument,
    FunResult,
    SumSummand,
    CompactSumSummand,
    TupleComponent,
    CompactProductComponent,
    ArrayElement,
    ArrayIndex,
    CompactArrayElement,
    CompactArrayIndex,
    /// The operand of `&`, `&<`, `&>` and `secret`: any operator type is parenthesised.
    PointerTarget,
    /// An argument of `_pclt<D, C>`: a compact type, unitsums as numbers.
    CompactPointerArgument,
}

/// Binding strength of the type operators, loosest first. Atoms bind tightest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Precedence {
    Function,
    Sum,
    CompactSum,
    Product,
    CompactProduct,
    Exponent,
    Atom,
}

fn precedence_of(ty: &Type) -> Precedence {
    match ty {
        Type::Fun(..) => Precedence::Function,
        Type::Sum(_) => Precedence::Sum,
        Type::CSum(_) => Precedence::CompactSum,
        Type::Tuple(_) => Precedence::Product,
        Type::CProduct(_) => Precedence::CompactProduct,
        Type::CArray(_, index) if index.is_written_as_product() => Precedence::CompactProduct,
        Type::Array(..) | Type::CArray(..) => Precedence::Exponent,
        _ => Precedence::Atom,
    }
}

impl OperandSlot {
    /// The precedence of the operator whose operand this slot is; `None` at the top.
    fn parent_precedence(self) -> Option<Precedence> {
        match self {
            OperandSlot::Top => None,
            OperandSlot::FunArgument | OperandSlot::FunResult => Some(Precedence::Function),
            OperandSlot::SumSummand => Some(Precedence::Sum),
            OperandSlot::CompactSumSummand => Some(Precedence::CompactSum),
            OperandSlot::TupleComponent => Some(Precedence::Product),
            OperandSlot::CompactProductComponent => Some(Precedence::CompactProduct),
            OperandSlot::ArrayElement
            | OperandSlot::ArrayIndex
            | OperandSlot::CompactArrayElement
            | OperandSlot::CompactArrayIndex => Some(Precedence::Exponent),
            OperandSlot::PointerTarget => Some(Precedence::Atom),
            OperandSlot::CompactPointerArgument => None,
        }
    }

    /// Do the unitsums 0, 1 and 2 print as numbers in this slot?
    fn unitsums_as_numbers(self) -> bool {
        matches!(
            self,
            OperandSlot::CompactSumSummand
                | OperandSlot::CompactProductComponent
                | OperandSlot::CompactArrayElement
                | OperandSlot::CompactArrayIndex
                | OperandSlot::ArrayIndex
                | OperandSlot::CompactPointerArgument
        )
    }

    /// Does a type in this slot need parentheses?
    fn needs_parentheses(self, ty: &Type) -> bool {
        let own = precedence_of(ty);
        if own == Precedence::Atom {
            return false;
        }
        let Some(parent) = self.parent_precedence() else {
            return false;
        };
        match self {
            // An index or a pointer's target that is an operator type is always
            // parenthesised.
            OperandSlot::ArrayIndex
            | OperandSlot::CompactArrayIndex
            | OperandSlot::PointerTarget => true,
            // `^` and `\^` chain to the left: `int ^ 2 ^ 3` is `(int ^ 2) ^ 3`.
            OperandSlot::ArrayElement | OperandSlot::CompactArrayElement => {
                own < Precedence::Exponent
            }
            // `->` chains to the right: `int -> int -> int` is `int -> (int -> int)`.
            OperandSlot::FunResult => false,
            _ => own <= parent,
        }
    }
}

/// Writes a type into a string, eliding what does not fit the width budget
/// (`--max-type-width`): a type stored as a DAG (a typedef used twice) can have an expanded
/// tree exponentially larger than its definition, so printing never expands more than the
/// budget. Past the budget, each remaining operand list prints as one `…`.
struct Printer {
    out: String,
    budget: usize,
}

impl Printer {
    fn exhausted(&self) -> bool {
        self.out.len() >= self.budget
    }

    fn operand(&mut self, ty: &Type, slot: OperandSlot) {
        if self.exhausted() {
            self.out.push('…');
            return;
        }
        let parenthesised = slot.needs_parentheses(ty);
        if parenthesised {
            self.out.push('(');
        }
        self.bare(ty, slot);
        if parenthesised {
            self.out.push(')');
        }
    }

    fn bare(&mut self, ty: &Type, slot: OperandSlot) {
        match ty {
            Type::Unitsum(n) => match n {
                0 if !slot.unitsums_as_numbers() => self.out.push_str("void"),
                1 if !slot.unitsums_as_numbers() => self.out.push_str("unit"),
                2 if !slot.unitsums_as_numbers() => self.out.push_str("bool"),
                _ => self.out.push_str(&n.to_string()),
            },
            Type::Int(int_ty) => self.out.push_str(int_ty.name()),
            Type::Float => self.out.push_str("float"),
            Type::Double => self.out.push_str("double"),
            Type::String => self.out.push_str("string"),
            Type::Char => self.out.push_str("char"),
            Type::Natural => self.out.push_str("natural"),
            Type::Tuple(components) => self.join(components, OperandSlot::TupleComponent, " * "),
            Type::Sum(summands) => self.join(summands, OperandSlot::SumSummand, " + "),
            Type::CProduct(components) => {
                self.join(components, OperandSlot::CompactProductComponent, " \\* ")
            }
            Type::CSum(summands) => self.join(summands, OperandSlot::CompactSumSummand, " \\+ "),
            Type::Array(element, index) => {
                self.operand(element, OperandSlot::ArrayElement);
                self.out.push_str(" ^ ");
                self.operand(index, OperandSlot::ArrayIndex);
            }
            // `A \* A \* A` as written (the normal form is `A \^ 3`).
            Type::CArray(element, index) if index.is_written_as_product() => {
                let count = match **index {
                    Type::Unitsum(count) => count,
                    _ => 2,
                };
                for position in 0..count {
                    if position > 0 {
                        self.out.push_str(" \\* ");
                        if self.exhausted() {
                            self.out.push('…');
                            return;
                        }
                    }
                    self.operand(element, OperandSlot::CompactProductComponent);
                }
            }
            Type::CArray(element, index) => {
                self.operand(element, OperandSlot::CompactArrayElement);
                self.out.push_str(" \\^ ");
                self.operand(index, OperandSlot::CompactArrayIndex);
            }
            Type::Fun(argument, result) => {
                self.operand(argument, OperandSlot::FunArgument);
                self.out.push_str(" -> ");
                self.operand(result, OperandSlot::FunResult);
            }
            Type::Var(variable) => self.out.push_str(&variable.name),
            Type::Meta(number) => self.out.push_str(&format!("?{number}")),
            Type::Nominal(definition) => {
                self.out.push_str(&definition.name);
                if !definition.args().is_empty() {
                    self.out.push('[');
                    for (position, argument) in definition.args().iter().enumerate() {
                        if position > 0 {
                            self.out.push_str(", ");
                        }
                        self.operand(argument, OperandSlot::Top);
                    }
                    self.out.push(']');
                }
            }
            Type::Record(names, types) => {
                self.out.push('(');
                for (position, (name, field)) in names.iter().zip(types.iter()).enumerate() {
                    if position > 0 {
                        self.out.push_str(", ");
                        if self.exhausted() {
                            self.out.push('…');
                            break;
                        }
                    }
                    self.out.push_str(name);
                    self.out.push(':');
                    self.operand(field, OperandSlot::Top);
                }
                self.out.push(')');
            }
            Type::Ptr(mode, target) => {
                self.out.push_str(match mode {
                    PtrMode::ReadWrite => "&",
                    PtrMode::Read => "&<",
                    PtrMode::Write => "&>",
                });
                self.operand(target, OperandSlot::PointerTarget);
            }
            Type::Secret(target) => {
                self.out.push_str("secret ");
                self.operand(target, OperandSlot::PointerTarget);
            }
            Type::Distributed(target) => {
                // The qualifier takes a whole power: `distributed int ^ 3`.
                self.out.push_str("distributed ");
                self.operand(target, OperandSlot::CompactProductComponent);
            }
            Type::CPtr(mode, whole, component) => {
                self.out.push_str(match mode {
                    PtrMode::ReadWrite => "_pclt<",
                    PtrMode::Read => "_rpclt<",
                    PtrMode::Write => "_wpclt<",
                });
                self.operand(whole, OperandSlot::CompactPointerArgument);
                self.out.push_str(", ");
                self.operand(component, OperandSlot::CompactPointerArgument);
                self.out.push('>');
            }
        }
    }

    fn join(&mut self, operands: &[Type], slot: OperandSlot, separator: &'static str) {
        for (position, operand) in operands.iter().enumerate() {
            if position > 0 {
                self.out.push_str(separator);
                if self.exhausted() {
                    self.out.push('…');
                    return;
                }
            }
            self.operand(operand, slot);
        }
    }
}

thread_local! {
    /// The width budget of types printed on this thread: the session's `--max-type-width`
    /// while one of its calls runs (`with_type_width`), the default otherwise. A type prints
    /// through `Display` deep inside messages, where no session value travels.
    static TYPE_WIDTH: std::cell::Cell<usize> =
        const { std::cell::Cell::new(crate::limits::DEFAULT_MAX_TYPE_WIDTH as usize) };
}

/// The width budget of a type printed now (see `with_type_width`).
pub fn type_width() -> usize {
    TYPE_WIDTH.with(|width| width.get())
}

/// Run `f` with types printed on this thread cut at `width` characters; the width before is
/// restored afterwards, also when `f` panics.
pub fn with_type_width<R>(width: usize, f: impl FnOnce() -> R) -> R {
    struct Restore(usize);
    impl Drop for Restore {
        fn drop(&mut self) {
            TYPE_WIDTH.with(|width| width.set(self.0));
        }
    }
    let _restore = Restore(TYPE_WIDTH.with(|current| current.replace(width)));
    f()
}

/// Print in a slot with the width budget of `--max-type-width`.
fn print_in_slot(ty: &Type, slot: OperandSlot) -> String {
    let mut printer = Printer {
        out: String::new(),
        budget: type_width(),
    };
    printer.operand(ty, slot);
    printer.out
}

/// The type in the spec's syntax. `Display for Type` calls this. A type wider than
/// `--max-type-width` characters is cut, the rest elided as `…`.
pub fn type_to_string(ty: &Type) -> String {
    print_in_slot(ty, OperandSlot::Top)
}

/// The type as it prints when it is an operand in `slot` of some parent type, parentheses
/// included: `int -> int` in `OperandSlot::TupleComponent` prints `(int -> int)`.
pub fn type_to_string_in_slot(ty: &Type, slot: OperandSlot) -> String {
    print_in_slot(ty, slot)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::types::ty::{IntTy, Kind, NominalDef, TyVar};

    fn check(ty: Type, expected: &str) {
        assert_eq!(type_to_string(&ty), expected);
        assert_eq!(ty.to_string(), expected);
    }

    fn unitsum(n: u64) -> Type {
        Type::Unitsum(n)
    }

    #[test]
    fn scalars_and_special_unitsums() {
        check(Type::INT, "int");
        check(Type::Int(IntTy::U64), "uint64");
        check(Type::Double, "double");
        check(Type::Float, "float");
        check(Type::String, "string");
        check(Type::Char, "char");
        check(Type::Natural, "natural");
        check(Type::VOID, "void");
        check(Type::UNIT, "unit");
        check(Type::BOOL, "bool");
        check(unitsum(5), "5");
        check(Type::Meta(7), "?7");
    }

    #[test]
    fn variables_and_nominal_types_print_by_name() {
        let variable = TyVar {
            id: 3,
            name: Arc::from("N"),
            kind: Kind::CompactLinear,
        };
        check(Type::Var(variable.clone()), "N");
        check(Type::array(Type::INT, Type::Var(variable)), "int ^ N");
        let definition = NominalDef::new(1, Arc::from("point"), Vec::new());
        check(Type::Nominal(Arc::new(definition)), "point");
    }

    #[test]
    fn examples_of_the_spec_and_transcripts() {
        check(Type::tuple(vec![Type::INT, Type::String]), "int * string");
        check(Type::cproduct(vec![unitsum(3), unitsum(2)]), "3 \\* 2");
        // Equal factors are `3 \^ 2` in normal form but print as written.
        let square = Type::array(Type::INT, Type::cproduct(vec![unitsum(3), unitsum(3)]));
        check(square.clone(), "int ^ (3 \\* 3)");
        check(square.normal_form(), "int ^ (3 \\^ 2)");
        assert_eq!(square, square.normal_form());
        check(
            Type::carray(Type::cproduct(vec![unitsum(2), unitsum(2)]), unitsum(3)),
            "(2 \\* 2) \\^ 3",
        );
        check(
            Type::array(Type::INT, Type::cproduct(vec![unitsum(3), unitsum(2)])),
            "int ^ (3 \\* 2)",
        );
        check(
            Type::fun(Type::BOOL, Type::csum(vec![unitsum(3), unitsum(2)])),
            "bool -> 3 \\+ 2",
        );
        check(Type::fun(Type::INT, Type::String), "int -> string");
        check(Type::array(Type::INT, unitsum(3)), "int ^ 3");
        check(
            Type::tuple(vec![Type::INT, Type::tuple(vec![Type::INT, Type::String])]),
            "int * (int * string)",
        );
        check(
            Type::tuple(vec![Type::INT, Type::String, Type::Double]),
            "int * string * double",
        );
        check(Type::tuple(vec![Type::BOOL, Type::INT]), "bool * int");
        check(Type::array(Type::INT, Type::BOOL), "int ^ 2");
    }

    #[test]
    fn exponentially_large_types_are_elided_past_the_width() {
        // T(k) = T(k-1) * T(k-1) * int: 2^60 leaves stored in 60 nodes.
        let mut ty = Type::BOOL;
        for _ in 0..60 {
            ty = Type::tuple(vec![ty.clone(), ty, Type::INT]);
        }
        let text = type_to_string(&ty);
        let width = type_width();
        // Past the budget each open level still closes its operand list: at most a few
        // characters per level of nesting.
        assert!(text.len() < width + 10 * 60, "{} characters", text.len());
        assert!(text.starts_with("(((("), "{text}");
        assert!(text.contains('…'), "{text}");
        assert_eq!(
            text.matches('(').count(),
            text.matches(')').count(),
            "balanced: {text}"
        );
    }

    #[test]
    fn the_width_is_the_one_of_the_enclosing_scope() {
        let mut ty = Type::BOOL;
        for _ in 0..60 {
            ty = Type::tuple(vec![ty.clone(), ty, Type::INT]);
        }
        let default = type_to_string(&ty);
        let narrow = with_type_width(100, || type_to_string(&ty));
        assert!(narrow.len() < default.len(), "{narrow}");
        assert!(narrow.len() < 100 + 10 * 60, "{} characters", narrow.len());
        // The scope ends with the call: the default is back.
        assert_eq!(type_width(), crate::limits::DEFAULT_MAX_TYPE_WIDTH as usize);
        assert_eq!(type_to_string(&ty), default);
    }

    #[test]
    fn exponents_chain_to_the_left() {
        let rows = Type::array(Type::array(Type::INT, unitsum(2)), unitsum(3));
        check(rows, "int ^ 2 ^ 3");
        let nested_index = Type::array(Type::INT, Type::carray(unitsum(2), unitsum(3)));
        check(nested_index, "int ^ (2 \\^ 3)");
        check(
            Type::carray(Type::carray(unitsum(3), unitsum(2)), unitsum(4)),
            "3 \\^ 2 \\^ 4",
        );
        check(Type::carray(Type::BOOL, Type::BOOL), "2 \\^ 2");
    }

    #[test]
    fn functions_chain_to_the_right() {
        check(
            Type::fun(Type::INT, Type::fun(Type::INT, Type::INT)),
            "int -> int -> int",
        );
        check(
            Type::fun(Type::fun(Type::INT, Type::INT), Type::INT),
            "(int -> int) -> int",
        );
        check(
            Type::tuple(vec![Type::fun(Type::INT, Type::INT), Type::INT]),
            "(int -> int) * int",
        );
        check(Type::fun(Type::UNIT, Type::VOID), "unit -> void");
    }

    #[test]
    fn looser_operands_are_parenthesised() {
        check(
            Type::tuple(vec![Type::sum(vec![Type::INT, Type::Double]), Type::String]),
            "(int + double) * string",
        );
        check(
            Type::sum(vec![
                Type::tuple(vec![Type::INT, Type::Double]),
                Type::String,
            ]),
            "int * double + string",
        );
        check(
            Type::csum(vec![unitsum(3), Type::tuple(vec![unitsum(2), unitsum(4)])]),
            "3 \\+ bool * 4",
        );
        check(
            Type::cproduct(vec![Type::csum(vec![unitsum(3), unitsum(2)]), unitsum(2)]),
            "(3 \\+ 2) \\* 2",
        );
        check(
            Type::cproduct(vec![
                Type::cproduct(vec![unitsum(3), unitsum(2)]),
                unitsum(4),
            ]),
            "(3 \\* 2) \\* 4",
        );
        check(
            Type::array(Type::tuple(vec![Type::INT, Type::Double]), unitsum(2)),
            "(int * double) ^ 2",
        );
        check(
            Type::array(Type::INT, Type::array(Type::BOOL, unitsum(3))),
            "int ^ (bool ^ 3)",
        );
        check(Type::array(Type::BOOL, unitsum(3)), "bool ^ 3");
        check(Type::sum(vec![Type::UNIT, Type::INT]), "unit + int");
    }

    #[test]
    fn operand_slots_add_parentheses() {
        let function = Type::fun(Type::INT, Type::INT);
        assert_eq!(
            type_to_string_in_slot(&function, OperandSlot::TupleComponent),
            "(int -> int)"
        );
        assert_eq!(
            type_to_string_in_slot(&Type::BOOL, OperandSlot::ArrayElement),
            "bool"
        );
        assert_eq!(
            type_to_string_in_slot(&Type::BOOL, OperandSlot::ArrayIndex),
            "2"
        );
    }
}
