//! The one type representation, shared by the checker, the typed IR and the evaluator.
//! Types are always kept in normal form: the smart constructors below
//! are the only way compound types are built, so structural equality *is* type equality.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use crate::syntax::ast::PtrMode;

/// The integer family. `int`/`uint` are 32-bit like C; `long`, `vlong` and `size` are
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
    /// `tiny`, `utiny`, `short`, `ushort`: 8 and 16 bits.
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

    /// The literal suffix that `_strr` prints after a value of this type.
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

/// Kinds, ordered from most to least specific.
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

/// A nominal type: a struct or a variant. Compared by `id`. The body is set once
/// after creation, so recursive variants can refer to themselves.
///
/// A parametric declaration (`struct Box[T] { v: T; }`, `variant tree[T] = …`) is a
/// `NominalDef` with `params` and a body over them; it is never a type itself. Each of its
/// instances (`Box[int]`, `tree[T]` inside a generic function, `Box[?3]` during inference) is a
/// `NominalDef` of its own, made only by [`instantiate_nominal`], which interns them: one
/// instance (one `id`) per declaration and arguments, so equality by `id` stays structural.
/// An instance's body is the declaration's with the arguments substituted, made when it is
/// first asked for ([`NominalDef::body`]): most instances (`list[T]` in the signature of each
/// generic library function) are only compared, never looked into.
pub struct NominalDef {
    pub id: u32,
    pub name: Arc<str>,
    body: OnceLock<NominalBody>,
    /// The type parameters of a parametric declaration (empty otherwise and on instances).
    pub params: Vec<TyVar>,
    /// The declaration and the type arguments of an instance.
    pub instance: Option<(Arc<NominalDef>, TypeList)>,
    /// Declared by the library (the prelude), whose `opt` and `list` print as Felix's.
    pub library: std::sync::atomic::AtomicBool,
}

#[derive(Clone, Debug)]
pub enum NominalBody {
    /// Fields in declaration order.
    Struct(Vec<(Arc<str>, Type)>),
    /// Constructors in declaration order; `None` for a constant constructor.
    Variant(Vec<(Arc<str>, Option<Type>)>),
    /// An opaque type (`type K = new R;`): values are stored exactly as their representation
    /// `repr`, which only the scope of the declaration sees (`_make_K`, `_repr_`); `eq` when
    /// the declaration grants equality (`with Eq`).
    Opaque { repr: Type, eq: bool },
}

impl NominalDef {
    /// A declaration (not an instance) with no body yet.
    pub fn new(id: u32, name: Arc<str>, params: Vec<TyVar>) -> NominalDef {
        NominalDef {
            id,
            name,
            body: OnceLock::new(),
            params,
            instance: None,
            library: Default::default(),
        }
    }

    /// The type arguments of an instance (none for a plain struct or variant).
    pub fn args(&self) -> &[Type] {
        match &self.instance {
            Some((_, args)) => args,
            None => &[],
        }
    }

    /// Is this the instance of `declaration`?
    pub fn instance_of(&self, declaration: &NominalDef) -> bool {
        matches!(&self.instance, Some((d, _)) if std::ptr::eq(Arc::as_ptr(d), declaration))
    }

    /// Set the body of a declaration (its instances then have theirs): `false` when it had
    /// one already (which it keeps).
    pub fn set_body(&self, body: NominalBody) -> bool {
        self.body.set(body).is_ok()
    }

    /// The body: fields, constructors or representation; `None` while the declaration has
    /// none yet (a recursive variant's own constructors mention it).
    pub fn body(&self) -> Option<&NominalBody> {
        if let Some(body) = self.body.get() {
            return Some(body);
        }
        let (declaration, args) = self.instance.as_ref()?;
        let body = declaration.body()?;
        let params = &declaration.params;
        let body = match body {
            NominalBody::Struct(fields) => NominalBody::Struct(
                fields
                    .iter()
                    .map(|(n, t)| (n.clone(), t.subst_vars(params, args)))
                    .collect(),
            ),
            NominalBody::Variant(ctors) => NominalBody::Variant(
                ctors
                    .iter()
                    .map(|(n, t)| (n.clone(), t.as_ref().map(|t| t.subst_vars(params, args))))
                    .collect(),
            ),
            NominalBody::Opaque { repr, eq } => NominalBody::Opaque {
                repr: repr.subst_vars(params, args),
                eq: *eq,
            },
        };
        // Another thread may have made it meanwhile: the same body, either is kept.
        Some(self.body.get_or_init(|| body))
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
/// The interned instances of parametric nominal types, by declaration (its address, kept
/// alive by the instances) and arguments.
#[derive(Default)]
struct Instances {
    by_key: std::collections::HashMap<(usize, Vec<Type>), Arc<NominalDef>>,
}

fn instances() -> &'static std::sync::Mutex<Instances> {
    static TABLE: OnceLock<std::sync::Mutex<Instances>> = OnceLock::new();
    TABLE.get_or_init(Default::default)
}

/// Instance ids are global and above every declaration's id (declarations are numbered by each
/// checker from 0).
static NEXT_INSTANCE_ID: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1 << 31);

/// The instance `declaration[args]` of a parametric struct or variant: the same `Arc` (and
/// `id`) for the same declaration and arguments. The caller checks the number of arguments and
/// their kinds. The body is the declaration's with the arguments substituted, made when it is
/// first asked for ([`NominalDef::body`]).
pub fn instantiate_nominal(declaration: &Arc<NominalDef>, args: Vec<Type>) -> Type {
    let key = (Arc::as_ptr(declaration) as usize, args);
    let mut table = instances().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(found) = table.by_key.get(&key) {
        return Type::Nominal(found.clone());
    }
    let id = NEXT_INSTANCE_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let instance = Arc::new(NominalDef {
        id,
        name: declaration.name.clone(),
        body: OnceLock::new(),
        params: Vec::new(),
        instance: Some((declaration.clone(), TypeList::new(key.1.clone()))),
        library: Default::default(),
    });
    table.by_key.insert(key, instance.clone());
    Type::Nominal(instance)
}

impl fmt::Debug for NominalDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}", self.name, self.id)
    }
}

/// A type, always in normal form.
///
/// Compound types share their parts (`TypeRef`, `TypeList`): a typedef used twice is one
/// subtree referenced twice, so a type is a DAG whose expanded tree may be exponentially
/// larger. Every part carries facts computed once when it is built (a structural hash, the
/// expanded node count, whether it mentions an inference variable, a type parameter or a
/// function), so equality, hashing and those queries never walk the expanded tree.
#[derive(Clone, Debug)]
pub enum Type {
    /// The unitsum `n`: `0` = void, `1` = unit, `2` = bool.
    Unitsum(u64),
    Int(IntTy),
    Float,
    Double,
    String,
    Char,
    /// Unbounded natural.
    Natural,
    /// A plain product of at least two components, not all equal (those are arrays).
    Tuple(TypeList),
    /// `T ^ I`: element, index. The index is never the unitsum 0 or 1 (normalised away).
    Array(TypeRef, TypeRef),
    /// A plain sum of at least two summands.
    Sum(TypeList),
    /// `A \* B`: at least two components, not all equal (those are compact arrays).
    CProduct(TypeList),
    /// `A \+ B`: at least two summands.
    CSum(TypeList),
    /// `T \^ I`.
    CArray(TypeRef, TypeRef),
    /// `A -> B`.
    Fun(TypeRef, TypeRef),
    /// A declared type parameter.
    Var(TyVar),
    /// An inference variable; only ever seen inside the checker.
    Meta(u32),
    /// A struct or variant.
    Nominal(Arc<NominalDef>),
    /// A record `(a:int, b:string)`: at least one field, names distinct and sorted
    /// (byte order), one type per name in the list. Built only by `Type::record`.
    Record(Arc<[Arc<str>]>, TypeList),
    /// A pointer `&T`, `&<T` or `&>T`.
    Ptr(PtrMode, TypeRef),
    /// A pointer to a component of type `C` of a compact value of type `D`:
    /// `_pclt<D, C>`, `_rpclt<D, C>`, `_wpclt<D, C>`.
    CPtr(PtrMode, TypeRef, TypeRef),
    /// `secret T` (the visibility dimension): a value the program may compute with
    /// but never print, branch on or use as a shape without `reveal`. Built only by
    /// [`Type::secret`], which distributes the qualifier over tuples, arrays (the element:
    /// shape is public) and records, so `T` is a scalar, a compact type, a sum, a nominal type,
    /// a type parameter or an inference variable. The checker's business only: the IR it
    /// produces is erased ([`Type::erase_secret`]), so values are stored as public ones.
    Secret(TypeRef),
    /// `distributed T ^ I` (the distribution dimension): an array stored as equal chunks of
    /// its linear index, one per process. Built only by [`Type::distributed`], around an
    /// array type (an array whose element is distributed is the distributed array, so
    /// `distributed double ^ 4 ^ 5` is one distributed array of 20 doubles). The checker's
    /// business: the IR it produces is erased ([`Type::erase_distributed`]) and the
    /// operations that run on chunks are chosen as their own kernels.
    Distributed(TypeRef),
}

/// Facts about a type, computed once per compound node from its children's facts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Facts {
    /// A structural hash: equal types have equal hashes.
    pub hash: u64,
    /// The number of nodes of the expanded tree (saturating).
    pub nodes: u64,
    /// `FACT_META`, `FACT_VAR`, `FACT_FUN` for what the type mentions.
    pub flags: u8,
}

pub const FACT_META: u8 = 1;
pub const FACT_VAR: u8 = 2;
pub const FACT_FUN: u8 = 4;
/// The type is not compact linear: a kind check reads this instead of walking.
pub const FACT_NONCOMPACT: u8 = 8;
/// The type mentions `secret`.
pub const FACT_SECRET: u8 = 16;
/// The type mentions `distributed`.
pub const FACT_DISTRIBUTED: u8 = 32;

fn mix(hash: u64, value: u64) -> u64 {
    // A multiply-rotate mix (as in FxHash), good enough for a structural hash.
    (hash.rotate_left(5) ^ value).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95)
}

/// The facts of a node that is not compact linear whatever its parts.
fn noncompact(mut facts: Facts) -> Facts {
    facts.flags |= FACT_NONCOMPACT;
    facts
}

impl Facts {
    fn leaf(tag: u64, value: u64, flags: u8) -> Facts {
        Facts {
            hash: mix(mix(0x9e37_79b9_7f4a_7c15, tag), value),
            nodes: 1,
            flags,
        }
    }

    fn node(tag: u64, children: impl Iterator<Item = Facts>) -> Facts {
        let mut facts = Facts {
            hash: mix(0x9e37_79b9_7f4a_7c15, tag),
            nodes: 1,
            flags: 0,
        };
        for child in children {
            facts.hash = mix(facts.hash, child.hash);
            facts.nodes = facts.nodes.saturating_add(child.nodes);
            facts.flags |= child.flags;
        }
        facts
    }
}

/// A shared part of a compound type (an element, an index, an argument, a result), with its
/// facts. Dereferences to the `Type`.
///
/// The node also remembers how the part was written where the normal form forgets it:
/// the index `n` of `A \^ n` built from `A \* A \* …` (`Type::cproduct`) is marked, so the
/// type prints as the user wrote it. Equality, hashing and facts ignore the mark.
#[derive(Clone)]
pub struct TypeRef(Arc<(Facts, Type, bool)>);

impl TypeRef {
    pub fn new(ty: Type) -> TypeRef {
        TypeRef(Arc::new((ty.facts(), ty, false)))
    }

    /// The index of a compact array that was written as a compact product of equal factors.
    fn written_as_product(ty: Type) -> TypeRef {
        TypeRef(Arc::new((ty.facts(), ty, true)))
    }

    /// Was this compact array index written as a product of equal factors (`3 \* 3`)?
    pub fn is_written_as_product(&self) -> bool {
        self.0 .2
    }

    pub fn facts(&self) -> Facts {
        self.0 .0
    }

    /// Are both the same shared node (so certainly equal)?
    pub fn ptr_eq(a: &TypeRef, b: &TypeRef) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }

    /// The address of the shared node, an identity for memoising walks over the DAG.
    pub fn node_id(&self) -> usize {
        Arc::as_ptr(&self.0) as *const () as usize
    }
}

impl Deref for TypeRef {
    type Target = Type;
    fn deref(&self) -> &Type {
        &self.0 .1
    }
}

impl AsRef<Type> for TypeRef {
    fn as_ref(&self) -> &Type {
        self
    }
}

impl PartialEq for TypeRef {
    fn eq(&self, other: &TypeRef) -> bool {
        TypeRef::ptr_eq(self, other) || (self.facts() == other.facts() && **self == **other)
    }
}
impl Eq for TypeRef {}

impl fmt::Display for TypeRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&**self, f)
    }
}

impl fmt::Debug for TypeRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

/// The shared components or summands of a compound type, with their combined facts.
/// Dereferences to the slice of types.
#[derive(Clone)]
pub struct TypeList(Arc<(Facts, Box<[Type]>)>);

impl TypeList {
    pub fn new(items: Vec<Type>) -> TypeList {
        let facts = Facts::node(0, items.iter().map(Type::facts));
        TypeList(Arc::new((facts, items.into_boxed_slice())))
    }

    pub fn facts(&self) -> Facts {
        self.0 .0
    }

    pub fn ptr_eq(a: &TypeList, b: &TypeList) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }

    /// The address of the shared list, an identity for memoising walks over the DAG.
    pub fn node_id(&self) -> usize {
        Arc::as_ptr(&self.0) as *const () as usize
    }
}

impl Deref for TypeList {
    type Target = [Type];
    fn deref(&self) -> &[Type] {
        &self.0 .1
    }
}

impl From<Vec<Type>> for TypeList {
    fn from(items: Vec<Type>) -> TypeList {
        TypeList::new(items)
    }
}

impl PartialEq for TypeList {
    fn eq(&self, other: &TypeList) -> bool {
        TypeList::ptr_eq(self, other) || (self.facts() == other.facts() && self[..] == other[..])
    }
}
impl Eq for TypeList {}

impl fmt::Debug for TypeList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self[..], f)
    }
}

impl PartialEq for Type {
    fn eq(&self, other: &Type) -> bool {
        match (self, other) {
            (Type::Unitsum(a), Type::Unitsum(b)) => a == b,
            (Type::Int(a), Type::Int(b)) => a == b,
            (Type::Var(a), Type::Var(b)) => a == b,
            (Type::Meta(a), Type::Meta(b)) => a == b,
            (Type::Nominal(a), Type::Nominal(b)) => a == b,
            (Type::Record(n1, t1), Type::Record(n2, t2)) => n1 == n2 && t1 == t2,
            (Type::Ptr(m1, a), Type::Ptr(m2, b)) => m1 == m2 && a == b,
            (Type::CPtr(m1, a, b), Type::CPtr(m2, c, d)) => m1 == m2 && a == c && b == d,
            (Type::Tuple(a), Type::Tuple(b))
            | (Type::Sum(a), Type::Sum(b))
            | (Type::CProduct(a), Type::CProduct(b))
            | (Type::CSum(a), Type::CSum(b)) => a == b,
            (Type::Array(a, b), Type::Array(c, d))
            | (Type::CArray(a, b), Type::CArray(c, d))
            | (Type::Fun(a, b), Type::Fun(c, d)) => a == c && b == d,
            // The remaining variants carry no data of their own (a new variant with data
            // besides its child types needs its own arm above): the same variant with equal
            // children.
            _ => {
                std::mem::discriminant(self) == std::mem::discriminant(other)
                    && self.children().eq(other.children())
            }
        }
    }
}
impl Eq for Type {}

impl Hash for Type {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.facts().hash)
    }
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
                    Type::Tuple(TypeList::new(comps))
                }
            }
        }
    }

    /// `elem ^ index`, normalised: `T ^ 1` = `T`, `T ^ 0` = `unit`.
    pub fn array(elem: Type, index: Type) -> Type {
        // An array of a distributed array is one distributed array (of the whole linear index).
        if let Type::Distributed(inner) = elem {
            return Type::distributed(Type::array((*inner).clone(), index));
        }
        match index {
            Type::Unitsum(0) => Type::UNIT,
            Type::Unitsum(1) => elem,
            _ => Type::Array(TypeRef::new(elem), TypeRef::new(index)),
        }
    }

    /// A plain sum; a single summand is itself, no summands is `void`.
    pub fn sum(mut summands: Vec<Type>) -> Type {
        match summands.len() {
            0 => Type::VOID,
            1 => summands.pop().unwrap(),
            _ => Type::Sum(TypeList::new(summands)),
        }
    }

    /// A compact product, normalised like `tuple`: `A \* A` = `A \^ 2`.
    pub fn cproduct(mut comps: Vec<Type>) -> Type {
        match comps.len() {
            0 => Type::UNIT,
            1 => comps.pop().unwrap(),
            n => {
                if comps.iter().all(|c| *c == comps[0]) {
                    Type::carray_written_as_product(comps.swap_remove(0), n as u64)
                } else {
                    Type::CProduct(TypeList::new(comps))
                }
            }
        }
    }

    pub fn csum(mut summands: Vec<Type>) -> Type {
        match summands.len() {
            0 => Type::VOID,
            1 => summands.pop().unwrap(),
            _ => Type::CSum(TypeList::new(summands)),
        }
    }

    /// `elem \^ index`, normalised like `array`.
    pub fn carray(elem: Type, index: Type) -> Type {
        match index {
            Type::Unitsum(0) => Type::UNIT,
            Type::Unitsum(1) => elem,
            _ => Type::CArray(TypeRef::new(elem), TypeRef::new(index)),
        }
    }

    /// `elem \^ count` written as `elem \* elem \* …` (`count` ≥ 2 factors): the same type
    /// as `Type::carray`, printed as a product.
    pub fn carray_written_as_product(elem: Type, count: u64) -> Type {
        match count {
            0 | 1 => Type::carray(elem, Type::Unitsum(count)),
            _ => Type::CArray(
                TypeRef::new(elem),
                TypeRef::written_as_product(Type::Unitsum(count)),
            ),
        }
    }

    /// The same type with every written form forgotten: it prints in normal form
    /// (`:type -n`).
    pub fn normal_form(&self) -> Type {
        self.map(&mut |ty| match ty {
            Type::CArray(element, index) if index.is_written_as_product() => {
                Some(Type::carray(element.normal_form(), (**index).clone()))
            }
            _ => None,
        })
    }

    pub fn fun(arg: Type, ret: Type) -> Type {
        Type::Fun(TypeRef::new(arg), TypeRef::new(ret))
    }

    pub fn ptr(mode: PtrMode, target: Type) -> Type {
        Type::Ptr(mode, TypeRef::new(target))
    }

    pub fn cptr(mode: PtrMode, whole: Type, component: Type) -> Type {
        Type::CPtr(mode, TypeRef::new(whole), TypeRef::new(component))
    }

    /// A pointer type's mode and the type it points at (the component for `_pclt`).
    pub fn pointee(&self) -> Option<(PtrMode, &Type)> {
        match self {
            Type::Ptr(mode, t) | Type::CPtr(mode, _, t) => Some((*mode, t)),
            _ => None,
        }
    }

    /// A record type, its fields sorted by name (byte order). The caller ensures at
    /// least one field and distinct names (E0202 is the checker's).
    pub fn record(mut fields: Vec<(Arc<str>, Type)>) -> Type {
        fields.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        let names: Arc<[Arc<str>]> = fields.iter().map(|(n, _)| n.clone()).collect();
        Type::Record(
            names,
            TypeList::new(fields.into_iter().map(|(_, t)| t).collect()),
        )
    }

    /// The type of field `k` of a tuple, record or struct type.
    pub fn field_type(&self, k: usize) -> Option<Type> {
        match self {
            Type::Tuple(parts) | Type::Record(_, parts) => parts.get(k).cloned(),
            Type::Nominal(def) => match def.body() {
                Some(NominalBody::Struct(fields)) => fields.get(k).map(|(_, t)| t.clone()),
                _ => None,
            },
            _ => None,
        }
    }

    /// The fields of a record type in sorted order: name, type, position.
    pub fn record_fields(&self) -> Option<impl Iterator<Item = (&str, &Type)> + '_> {
        match self {
            Type::Record(names, types) => Some(names.iter().map(|n| &**n).zip(types.iter())),
            _ => None,
        }
    }

    /// The position and type of field `name` of a record type.
    pub fn record_field(&self, name: &str) -> Option<(usize, &Type)> {
        match self {
            Type::Record(names, types) => names
                .iter()
                .position(|n| &**n == name)
                .map(|i| (i, &types[i])),
            _ => None,
        }
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

    /// The number of components of a tuple, a compact product, or an array or compact array
    /// over a unitsum (whatever its size: no list is built), as destructuring sees them.
    pub fn component_count(&self) -> Option<u128> {
        match self {
            Type::Tuple(cs) | Type::CProduct(cs) => Some(cs.len() as u128),
            Type::Array(_, i) | Type::CArray(_, i) => match **i {
                Type::Unitsum(n) => Some(n as u128),
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

    /// The facts of this type (O(1): compound parts carry theirs).
    pub fn facts(&self) -> Facts {
        match self {
            Type::Unitsum(n) => Facts::leaf(0, *n, 0),
            Type::Int(int_ty) => Facts::leaf(1, *int_ty as u64, FACT_NONCOMPACT),
            Type::Float => Facts::leaf(2, 0, FACT_NONCOMPACT),
            Type::Double => Facts::leaf(3, 0, FACT_NONCOMPACT),
            Type::String => Facts::leaf(4, 0, FACT_NONCOMPACT),
            Type::Char => Facts::leaf(5, 0, FACT_NONCOMPACT),
            Type::Natural => Facts::leaf(6, 0, FACT_NONCOMPACT),
            Type::Var(variable) => {
                let compact = if variable.kind.satisfies(Kind::CompactLinear) {
                    0
                } else {
                    FACT_NONCOMPACT
                };
                Facts::leaf(7, variable.id as u64, FACT_VAR | compact)
            }
            Type::Meta(number) => Facts::leaf(8, *number as u64, FACT_META | FACT_NONCOMPACT),
            Type::Nominal(definition) => {
                // An instance mentions what its arguments mention (not through its body).
                let flags = definition.args().iter().fold(0, |f, a| f | a.facts().flags)
                    & (FACT_META | FACT_VAR);
                Facts::leaf(9, definition.id as u64, FACT_NONCOMPACT | flags)
            }
            Type::Tuple(list) => noncompact(Facts::node(10, std::iter::once(list.facts()))),
            Type::Sum(list) => noncompact(Facts::node(11, std::iter::once(list.facts()))),
            Type::CProduct(list) => Facts::node(12, std::iter::once(list.facts())),
            Type::CSum(list) => Facts::node(13, std::iter::once(list.facts())),
            Type::Array(a, b) => noncompact(Facts::node(14, [a.facts(), b.facts()].into_iter())),
            Type::CArray(a, b) => Facts::node(15, [a.facts(), b.facts()].into_iter()),
            Type::Fun(a, b) => {
                let mut facts = Facts::node(16, [a.facts(), b.facts()].into_iter());
                facts.flags |= FACT_FUN | FACT_NONCOMPACT;
                facts
            }
            Type::Record(names, list) => {
                let mut facts = noncompact(Facts::node(17, std::iter::once(list.facts())));
                for name in names.iter() {
                    for byte in name.bytes() {
                        facts.hash = mix(facts.hash, byte as u64);
                    }
                    facts.hash = mix(facts.hash, 0x100);
                }
                facts
            }
            Type::Ptr(mode, a) => {
                let facts = noncompact(Facts::node(18, std::iter::once(a.facts())));
                Facts {
                    hash: mix(facts.hash, *mode as u64),
                    ..facts
                }
            }
            Type::CPtr(mode, a, b) => {
                let facts = noncompact(Facts::node(19, [a.facts(), b.facts()].into_iter()));
                Facts {
                    hash: mix(facts.hash, *mode as u64),
                    ..facts
                }
            }
            Type::Secret(a) => {
                let mut facts = noncompact(Facts::node(20, std::iter::once(a.facts())));
                facts.flags |= FACT_SECRET;
                facts
            }
            Type::Distributed(a) => {
                let mut facts = noncompact(Facts::node(21, std::iter::once(a.facts())));
                facts.flags |= FACT_DISTRIBUTED;
                facts
            }
        }
    }

    /// The number of nodes of the type's expanded tree (saturating at `u64::MAX`): a typedef
    /// used twice counts twice, although it is stored once.
    pub fn tree_size(&self) -> u64 {
        self.facts().nodes
    }

    /// The types directly inside this one, in order (components, summands, element and
    /// index, argument and result, the arguments of a parametric nominal type's instance);
    /// none for a scalar, a variable or a plain nominal type.
    pub fn children(&self) -> impl Iterator<Item = &Type> + '_ {
        let (list, pair): (&[Type], [Option<&Type>; 2]) = match self {
            Type::Tuple(list)
            | Type::Sum(list)
            | Type::CProduct(list)
            | Type::CSum(list)
            | Type::Record(_, list) => (list, [None, None]),
            Type::Array(a, b) | Type::CArray(a, b) | Type::Fun(a, b) | Type::CPtr(_, a, b) => {
                (&[], [Some(a), Some(b)])
            }
            Type::Ptr(_, a) | Type::Secret(a) | Type::Distributed(a) => (&[], [Some(a), None]),
            Type::Nominal(definition) => (definition.args(), [None, None]),
            _ => (&[], [None, None]),
        };
        list.iter().chain(pair.into_iter().flatten())
    }

    /// The identity of this node in the DAG (its variant and the addresses of its shared
    /// parts); used to memoise walks so that a shared subtree is visited once. `None` for
    /// leaves.
    pub fn node_key(&self) -> Option<(u8, usize, usize)> {
        match self {
            Type::Tuple(list) => Some((0, list.node_id(), 0)),
            Type::Sum(list) => Some((1, list.node_id(), 0)),
            Type::CProduct(list) => Some((2, list.node_id(), 0)),
            Type::CSum(list) => Some((3, list.node_id(), 0)),
            Type::Array(a, b) => Some((4, a.node_id(), b.node_id())),
            Type::CArray(a, b) => Some((5, a.node_id(), b.node_id())),
            Type::Fun(a, b) => Some((6, a.node_id(), b.node_id())),
            Type::Record(names, list) => {
                Some((7, list.node_id(), Arc::as_ptr(names) as *const () as usize))
            }
            Type::Ptr(mode, a) => Some((8 + *mode as u8, a.node_id(), 0)),
            Type::CPtr(mode, a, b) => Some((11 + *mode as u8, a.node_id(), b.node_id())),
            Type::Secret(a) => Some((14, a.node_id(), 0)),
            Type::Distributed(a) => Some((15, a.node_id(), 0)),
            _ => None,
        }
    }

    /// Does this type mention an inference variable?
    pub fn has_meta(&self) -> bool {
        self.facts().flags & FACT_META != 0
    }

    /// Does this type mention a declared type parameter?
    pub fn has_var(&self) -> bool {
        self.facts().flags & FACT_VAR != 0
    }

    /// Does this type mention a function type (not through nominal bodies)?
    pub fn has_fun(&self) -> bool {
        self.facts().flags & FACT_FUN != 0
    }

    /// Visit this type and every type inside it (not through nominal bodies). A subtree that
    /// is shared (a typedef used several times) is visited once, so the walk is linear in the
    /// size of the DAG, not of the expanded tree.
    pub fn walk(&self, f: &mut dyn FnMut(&Type)) {
        let mut seen = std::collections::HashSet::new();
        self.walk_shared(f, &mut seen);
    }

    fn walk_shared(
        &self,
        f: &mut dyn FnMut(&Type),
        seen: &mut std::collections::HashSet<(u8, usize, usize)>,
    ) {
        if let Some(key) = self.node_key() {
            if self.tree_size() > 8 && !seen.insert(key) {
                return;
            }
        }
        f(self);
        for child in self.children() {
            child.walk_shared(f, seen);
        }
    }

    /// The type with its inference variables numbered `?1`, `?2`, … in order of appearance:
    /// what a message shows, the same whatever inference ran before.
    pub fn with_unknowns_numbered(&self) -> Type {
        let mut order: Vec<u32> = Vec::new();
        self.walk(&mut |x| {
            if let Type::Meta(m) = x {
                if !order.contains(m) {
                    order.push(*m);
                }
            }
        });
        self.map(&mut |x| match x {
            Type::Meta(m) => order
                .iter()
                .position(|o| o == m)
                .map(|i| Type::Meta(i as u32 + 1)),
            _ => None,
        })
    }

    /// Rebuild the type bottom-up, replacing each node for which `f` returns `Some`, and
    /// renormalising through the smart constructors. `f` must be a function of the node
    /// alone: a shared subtree is rebuilt once and shared in the result.
    pub fn map(&self, f: &mut dyn FnMut(&Type) -> Option<Type>) -> Type {
        let mut memo = std::collections::HashMap::new();
        self.map_shared(f, &mut memo)
    }

    fn map_shared(
        &self,
        f: &mut dyn FnMut(&Type) -> Option<Type>,
        memo: &mut std::collections::HashMap<(u8, usize, usize), Type>,
    ) -> Type {
        let key = match self.node_key() {
            Some(key) if self.tree_size() > 8 => {
                if let Some(done) = memo.get(&key) {
                    return done.clone();
                }
                Some(key)
            }
            _ => None,
        };
        let mapped = match f(self) {
            Some(t) => t,
            None => match self {
                Type::Tuple(cs) => Type::tuple(cs.iter().map(|c| c.map_shared(f, memo)).collect()),
                Type::Sum(cs) => Type::sum(cs.iter().map(|c| c.map_shared(f, memo)).collect()),
                Type::CProduct(cs) => {
                    Type::cproduct(cs.iter().map(|c| c.map_shared(f, memo)).collect())
                }
                Type::CSum(cs) => Type::csum(cs.iter().map(|c| c.map_shared(f, memo)).collect()),
                Type::Array(e, i) => Type::array(e.map_shared(f, memo), i.map_shared(f, memo)),
                Type::CArray(e, i) => match (i.is_written_as_product(), i.map_shared(f, memo)) {
                    (true, Type::Unitsum(count)) => {
                        Type::carray_written_as_product(e.map_shared(f, memo), count)
                    }
                    (_, index) => Type::carray(e.map_shared(f, memo), index),
                },
                Type::Fun(a, b) => Type::fun(a.map_shared(f, memo), b.map_shared(f, memo)),
                Type::Record(names, cs) => Type::Record(
                    names.clone(),
                    TypeList::new(cs.iter().map(|c| c.map_shared(f, memo)).collect()),
                ),
                Type::Ptr(mode, a) => Type::ptr(*mode, a.map_shared(f, memo)),
                Type::CPtr(mode, a, b) => {
                    Type::cptr(*mode, a.map_shared(f, memo), b.map_shared(f, memo))
                }
                Type::Secret(a) => Type::secret(a.map_shared(f, memo)),
                Type::Distributed(a) => Type::distributed(a.map_shared(f, memo)),
                Type::Nominal(definition) => match &definition.instance {
                    Some((declaration, args)) => {
                        let args = args.iter().map(|a| a.map_shared(f, memo)).collect();
                        instantiate_nominal(declaration, args)
                    }
                    _ => self.clone(),
                },
                t => t.clone(),
            },
        };
        if let Some(key) = key {
            memo.insert(key, mapped.clone());
        }
        mapped
    }

    /// Replace declared type parameters by the given types (instantiation of a generic).
    /// Call `f` on every declared type parameter the type mentions.
    pub fn for_each_var(&self, f: &mut dyn FnMut(&TyVar)) {
        if !self.has_var() {
            return;
        }
        self.map(&mut |t| {
            if let Type::Var(v) = t {
                f(v);
            }
            (!t.has_var()).then(|| t.clone())
        });
    }

    /// `subst_vars` for run-time sizes: an array whose index becomes the unitsum 0 or 1 stays
    /// an array (`T ^ 1` is not made `T`), so code compiled for the sizes has the structure
    /// the checker gave it (an index, a loop, a `map` over it) whatever the sizes are.
    pub fn subst_sizes(&self, params: &[TyVar], args: &[Type]) -> Type {
        if params.is_empty() || !self.has_var() {
            return self.clone();
        }
        self.map(&mut |t| match t {
            Type::Var(v) => params.iter().position(|p| p == v).map(|i| args[i].clone()),
            // An array over a run-time size of 0 or 1 stays one when substituted again.
            Type::Array(element, index)
                if index.has_var() || matches!(**index, Type::Unitsum(0 | 1)) =>
            {
                let element = element.subst_sizes(params, args);
                let index = index.subst_sizes(params, args);
                Some(match index {
                    Type::Unitsum(0 | 1) => Type::Array(TypeRef::new(element), TypeRef::new(index)),
                    index => Type::array(element, index),
                })
            }
            _ => None,
        })
    }

    pub fn subst_vars(&self, params: &[TyVar], args: &[Type]) -> Type {
        if params.is_empty() || !self.has_var() {
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
