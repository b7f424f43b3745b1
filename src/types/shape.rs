//! The shape of an array of scalars as its dimensions: what the REPL's grids and the pictures
//! of `save_svg`, `save_png` and `:plot` take apart.

use num_traits::ToPrimitive;

use crate::types::size::size_of;
use crate::types::ty::Type;

/// The most dimensions an array is taken apart into.
pub const MAX_DIMENSIONS: usize = 16;

/// Is `ty` one cell of a grid (a scalar)?
pub fn is_scalar(ty: &Type) -> bool {
    matches!(
        ty,
        Type::Int(_) | Type::Double | Type::Float | Type::Char | Type::Natural | Type::String
    ) || matches!(ty, Type::Unitsum(n) if *n > 0)
}

/// The dimensions of an array of scalars, outermost first, and its scalar cell type: each
/// component of a compact product index is a dimension (`T ^ (A \* B)`), as is each factor
/// of `A \^ n` and each nested array (`T ^ B ^ A`). `None` when the cell is not a scalar or a
/// size is not known statically.
pub fn array_shape(ty: &Type) -> Option<(Vec<usize>, Type)> {
    let mut dims = Vec::new();
    let mut current = ty;
    while let Type::Array(element, index) = current {
        match &**index {
            Type::CProduct(components) => {
                for component in components.iter() {
                    dims.push(size_of(component)?.to_usize()?);
                }
            }
            Type::CArray(factor, count) => match **count {
                Type::Unitsum(n) if (n as usize) <= MAX_DIMENSIONS => {
                    let size = size_of(factor)?.to_usize()?;
                    dims.extend(std::iter::repeat_n(size, n as usize));
                }
                _ => dims.push(size_of(index)?.to_usize()?),
            },
            other => dims.push(size_of(other)?.to_usize()?),
        }
        if dims.len() > MAX_DIMENSIONS {
            return None;
        }
        // `T ^ B ^ A`: `A` (this index) is the outer dimension, `B` comes next.
        current = element;
    }
    is_scalar(current).then(|| (dims, current.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::ty::IntTy;

    #[test]
    fn dimensions_of_products_powers_and_nested_arrays() {
        let three = Type::Unitsum(3);
        let square = Type::array(
            Type::INT,
            Type::cproduct(vec![three.clone(), three.clone()]),
        );
        assert_eq!(array_shape(&square), Some((vec![3, 3], Type::INT)));
        let nested = Type::array(Type::array(Type::Double, Type::Unitsum(4)), three.clone());
        assert_eq!(array_shape(&nested), Some((vec![3, 4], Type::Double)));
        let rgb = Type::array(
            Type::tuple(vec![Type::Int(IntTy::U8); 3]),
            Type::cproduct(vec![Type::Unitsum(2), three]),
        );
        assert_eq!(
            array_shape(&rgb),
            Some((vec![2, 3, 3], Type::Int(IntTy::U8)))
        );
        assert_eq!(array_shape(&Type::INT), Some((vec![], Type::INT)));
    }
}
