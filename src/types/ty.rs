//! The one type representation, shared by the checker, the typed IR and the evaluator
//! (spec L2). Types are always kept in the normal form of L2.9: the smart constructors below
//! are the only way compound types are built, so structural equality *is* type equality.

use std::fmt;
use std::sync::{Arc, OnceLock};

/// The integer family of L2.1. `int`/`uint` are 32-bit like C; `long`, `vlong` and `size` are
/// 64-bit. Distinct names are distinct types (`int` and `int32` print differently).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum IntTy {
    Int,
    UInt,
    Long,
    ULong,
    VLong,
    UVLong,
    Size,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    /// `tiny`, `utiny`, `short`, `ushort` (L11.22): 8 and 16 bits.
    Tiny,
    UTiny,
    Short,
    UShort,
}

impl IntTy {
    pub const ALL: [IntTy; 19] = [
        IntTy::Int,
        IntTy::UInt,
        IntTy::Long,
        IntTy::ULong,
        IntTy::VLong,
        IntTy::UVLong,
        IntTy::Size,
        IntTy::I8,
        IntTy::I16,
        IntTy::I32,
        IntTy::I64,
        IntTy::U8,
        IntTy::U16,
        IntTy::U32,
        IntTy::U64,
        IntTy::Tiny,
        IntTy::UTiny,
        IntTy::Short,
        IntTy::UShort,
    ];

    pub fn bits(self) -> u32 {
        match self {
            IntTy::I8 | IntTy::U8 | IntTy::Tiny | IntTy::UTiny => 8,
            IntTy::I16 | IntTy::U16 | IntTy::Short | IntTy::UShort => 16,
            IntTy::Int | IntTy::UInt | IntTy::I32 | IntTy::U32 => 32,
            _ => 64,
        }
    }

    pub fn signed(self) -> bool {
        matches!(
            self,
            IntTy::Int
                | IntTy::Long
                | IntTy::VLong
                | IntTy::I8
                | IntTy::I16
                | IntTy::I32
                | IntTy::I64
                | IntTy::Tiny
                | IntTy::Short
        )
    }

    pub fn min(self) -> i128 {
        if self.signed() {
            -(1i128 << (self.bits() - 1))
        } else {
            0
        }
    }

    pub fn max(self) -> i128 {
        if self.signed() {
            (1i128 << (self.bits() - 1)) - 1
        } else {
            (1i128 << self.bits()) - 1
        }
    }

    pub fn contains(self, v: i128) -> bool {
        v >= self.min() && v <= self.max()
    }

    /// The name as written in source and printed in types.
    pub fn name(self) -> &'static str {
        match self {
            IntTy::Int => "int",
            IntTy::UInt => "uint",
            IntTy::Long => "long",
            IntTy::ULong => "ulong",
            IntTy::VLong => "vlong",
            IntTy::UVLong => "uvlong",
            IntTy::Size => "size",
            IntTy::I8 => "int8",
            IntTy::I16 => "int16",
            IntTy::I32 => "int32",
            IntTy::I64 => "int64",
            IntTy::U8 => "uint8",
            IntTy::U16 => "uint16",
            IntTy::U32 => "uint32",
            IntTy::U64 => "uint64",
            IntTy::Tiny => "tiny",
            IntTy::UTiny => "utiny",
            IntTy::Short => "short",
            IntTy::UShort => "ushort",
        }
    }

    /// The `_strr` suffix of L7.3.
    pub fn suffix(self) -> &'static str {
        match self {
            IntTy::Int => "",
            IntTy::UInt => "u",
            IntTy::Long => "l",
            IntTy::ULong => "ul",
            IntTy::VLong => "v",
            IntTy::UVLong => "uv",
            IntTy::Size => "uz",
            IntTy::I8 => "i8",
            IntTy::I16 => "i16",
            IntTy::I32 => "i32",
            IntTy::I64 => "i64",
            IntTy::U8 => "u8",
            IntTy::U16 => "u16",
            IntTy::U32 => "u32",
            IntTy::U64 => "u64",
            IntTy::Tiny => "t",
            IntTy::UTiny => "ut",
            IntTy::Short => "s",
            IntTy::UShort => "us",
        }
    }

    pub fn from_name(name: &str) -> Option<IntTy> {
        IntTy::ALL.iter().copied().find(|t| t.name() == name)
    }
}

/// Kinds (L2.13), ordered from most to least specific.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub enum Kind {
    Unitsum,
    CompactLinear,
    Type,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Unitsum => "UNITSUM",
            Kind::CompactLinear => "COMPACTLINEAR",
            Kind::Type => "TYPE",
        }
    }

    /// Does a type of kind `self` satisfy a constraint `bound`?
    pub fn satisfies(self, bound: Kind) -> bool {
        self <= bound
    }
}

/// A declared type parameter (`T`, `N:COMPACTLINEAR`). Rigid inside the generic body; the
/// checker replaces it by a fresh inference variable at every use of the function.
#[derive(Clone, Debug)]
pub struct TyVar {
    pub id: u32,
    pub name: Arc<str>,
    pub kind: Kind,
}

impl PartialEq for TyVar {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}
impl Eq for TyVar {}
impl std::hash::Hash for TyVar {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.id.hash(state)
    }
}

/// A nominal type: a struct or a variant (L2.11, L2.12). Compared by `id`. The body is set once
/// after creation, so recursive variants can refer to themselves.
pub struct NominalDef {
    pub id: u32,
    pub name: Arc<str>,
    pub body: OnceLock<NominalBody>,
}

#[derive(Clone, Debug)]
pub enum NominalBody {
    /// Fields in declaration order.
    Struct(Vec<(Arc<str>, Type)>),
    /// Constructors in declaration order; `None` for a constant constructor.
    Variant(Vec<(Arc<str>, Option<Type>)>),
}

impl NominalDef {
    pub fn body(&self) -> &NominalBody {
        self.body
            .get()
            .expect("nominal body is set when the definition is checked")
    }
}

impl PartialEq for NominalDef {
    fn eq(&self, other: &Self) -> bool {
        self.id == other.id
    }
}
impl Eq for NominalDef {}
impl std::hash::Hash for NominalDef {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.id.hash(state)
    }
}
impl fmt::Debug for NominalDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}", self.name, self.id)
    }
}

/// A type, always in normal form (L2.9).
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Type {
    /// The unitsum `n`: `0` = void, `1` = unit, `2` = bool (L2.2).
    Unitsum(u64),
    Int(IntTy),
    Float,
    Double,
    String,
    Char,
    /// Unbounded natural (L9.3).
    Natural,
    /// A plain product of at least two components, not all equal (those are arrays).
    Tuple(Arc<[Type]>),
    /// `T ^ I`: element, index. The index is never the unitsum 0 or 1 (normalised away).
    Array(Arc<Type>, Arc<Type>),
    /// A plain sum of at least two summands.
    Sum(Arc<[Type]>),
    /// `A \* B`: at least two components, not all equal (those are compact arrays).
    CProduct(Arc<[Type]>),
    /// `A \+ B`: at least two summands.
    CSum(Arc<[Type]>),
    /// `T \^ I`.
    CArray(Arc<Type>, Arc<Type>),
    /// `A -> B`.
    Fun(Arc<Type>, Arc<Type>),
    /// A declared type parameter.
    Var(TyVar),
    /// An inference variable; only ever seen inside the checker.
    Meta(u32),
    /// A struct or variant.
    Nominal(Arc<NominalDef>),
}

impl Type {
    pub const VOID: Type = Type::Unitsum(0);
    pub const UNIT: Type = Type::Unitsum(1);
    pub const BOOL: Type = Type::Unitsum(2);
    pub const INT: Type = Type::Int(IntTy::Int);
    pub const SIZE: Type = Type::Int(IntTy::Size);

    /// A plain product, normalised: `()` for no components, the component itself for one,
    /// `T ^ n` when all `n ≥ 2` components are equal.
    pub fn tuple(mut comps: Vec<Type>) -> Type {
        match comps.len() {
            0 => Type::UNIT,
            1 => comps.pop().unwrap(),
            n => {
                if comps.iter().all(|c| *c == comps[0]) {
                    Type::array(comps.swap_remove(0), Type::Unitsum(n as u64))
                } else {
                    Type::Tuple(comps.into())
                }
            }
        }
    }

    /// `elem ^ index`, normalised: `T ^ 1` = `T`, `T ^ 0` = `unit`.
    pub fn array(elem: Type, index: Type) -> Type {
        match index {
            Type::Unitsum(0) => Type::UNIT,
            Type::Unitsum(1) => elem,
            _ => Type::Array(Arc::new(elem), Arc::new(index)),
        }
    }

    /// A plain sum; a single summand is itself, no summands is `void`.
    pub fn sum(mut summands: Vec<Type>) -> Type {
        match summands.len() {
            0 => Type::VOID,
            1 => summands.pop().unwrap(),
            _ => Type::Sum(summands.into()),
        }
    }

    /// A compact product, normalised like `tuple`: `A \* A` = `A \^ 2`.
    pub fn cproduct(mut comps: Vec<Type>) -> Type {
        match comps.len() {
            0 => Type::UNIT,
            1 => comps.pop().unwrap(),
            n => {
                if comps.iter().all(|c| *c == comps[0]) {
                    Type::carray(comps.swap_remove(0), Type::Unitsum(n as u64))
                } else {
                    Type::CProduct(comps.into())
                }
            }
        }
    }

    pub fn csum(mut summands: Vec<Type>) -> Type {
        match summands.len() {
            0 => Type::VOID,
            1 => summands.pop().unwrap(),
            _ => Type::CSum(summands.into()),
        }
    }

    /// `elem \^ index`, normalised like `array`.
    pub fn carray(elem: Type, index: Type) -> Type {
        match index {
            Type::Unitsum(0) => Type::UNIT,
            Type::Unitsum(1) => elem,
            _ => Type::CArray(Arc::new(elem), Arc::new(index)),
        }
    }

    pub fn fun(arg: Type, ret: Type) -> Type {
        Type::Fun(Arc::new(arg), Arc::new(ret))
    }

    pub fn is_unit(&self) -> bool {
        *self == Type::UNIT
    }

    pub fn is_void(&self) -> bool {
        *self == Type::VOID
    }

    pub fn is_bool(&self) -> bool {
        *self == Type::BOOL
    }

    /// Components of a product-like type seen as a tuple: a tuple's components, or `n` copies
    /// of the element of an array over the unitsum `n`. `None` for anything else.
    pub fn tuple_components(&self) -> Option<Vec<Type>> {
        match self {
            Type::Tuple(cs) => Some(cs.to_vec()),
            Type::Array(e, i) => match **i {
                Type::Unitsum(n) if n <= 4096 => Some(vec![(**e).clone(); n as usize]),
                _ => None,
            },
            _ => None,
        }
    }

    /// Components of a compact product (`\*`, or `\^ n` over a unitsum index), as a list.
    pub fn cproduct_components(&self) -> Option<Vec<Type>> {
        match self {
            Type::CProduct(cs) => Some(cs.to_vec()),
            Type::CArray(e, i) => match **i {
                Type::Unitsum(n) if n <= 4096 => Some(vec![(**e).clone(); n as usize]),
                _ => None,
            },
            _ => None,
        }
    }

    /// Does this type mention an inference variable?
    pub fn has_meta(&self) -> bool {
        let mut found = false;
        self.walk(&mut |t| found |= matches!(t, Type::Meta(_)));
        found
    }

    /// Does this type mention a declared type parameter?
    pub fn has_var(&self) -> bool {
        let mut found = false;
        self.walk(&mut |t| found |= matches!(t, Type::Var(_)));
        found
    }

    /// Visit this type and every type inside it (not through nominal bodies).
    pub fn walk(&self, f: &mut dyn FnMut(&Type)) {
        f(self);
        match self {
            Type::Tuple(cs) | Type::Sum(cs) | Type::CProduct(cs) | Type::CSum(cs) => {
                for c in cs.iter() {
                    c.walk(f)
                }
            }
            Type::Array(a, b) | Type::CArray(a, b) | Type::Fun(a, b) => {
                a.walk(f);
                b.walk(f)
            }
            _ => {}
        }
    }

    /// Rebuild the type bottom-up, replacing each node for which `f` returns `Some`, and
    /// renormalising through the smart constructors.
    pub fn map(&self, f: &mut dyn FnMut(&Type) -> Option<Type>) -> Type {
        if let Some(t) = f(self) {
            return t;
        }
        match self {
            Type::Tuple(cs) => Type::tuple(cs.iter().map(|c| c.map(f)).collect()),
            Type::Sum(cs) => Type::sum(cs.iter().map(|c| c.map(f)).collect()),
            Type::CProduct(cs) => Type::cproduct(cs.iter().map(|c| c.map(f)).collect()),
            Type::CSum(cs) => Type::csum(cs.iter().map(|c| c.map(f)).collect()),
            Type::Array(e, i) => Type::array(e.map(f), i.map(f)),
            Type::CArray(e, i) => Type::carray(e.map(f), i.map(f)),
            Type::Fun(a, b) => Type::fun(a.map(f), b.map(f)),
            t => t.clone(),
        }
    }

    /// Replace declared type parameters by the given types (instantiation of a generic).
    pub fn subst_vars(&self, params: &[TyVar], args: &[Type]) -> Type {
        if params.is_empty() {
            return self.clone();
        }
        self.map(&mut |t| match t {
            Type::Var(v) => params.iter().position(|p| p == v).map(|i| args[i].clone()),
            _ => None,
        })
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::types::print::type_to_string(self))
    }
}
