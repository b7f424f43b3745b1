//! Printing types in the spec's own syntax (L2.17).

use crate::types::ty::Type;

pub fn type_to_string(ty: &Type) -> String {
    format!("{ty:?}")
}
