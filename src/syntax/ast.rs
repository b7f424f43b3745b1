//! The untyped syntax tree produced by the parser.
//!
//! Nothing here is checked: names are strings, types are type *expressions*. The checker turns
//! this tree into the typed IR (`crate::core::ir`). Every node that can be the subject of a
//! diagnostic carries a `Span`.

use crate::syntax::span::{Span, Spanned};
use serde::{Deserialize, Serialize};

/// What a pointer allows, as written: `&` read-write, `&<` read-only, `&>` write-only. A
/// read-write pointer is accepted where a read-only or a write-only one is expected, never the
/// other way.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PtrMode {
    ReadWrite,
    Read,
    Write,
}

impl PtrMode {
    pub fn can_read(self) -> bool {
        self != PtrMode::Write
    }

    pub fn can_write(self) -> bool {
        self != PtrMode::Read
    }

    /// Is a pointer of mode `self` accepted where one of mode `expected` is?
    pub fn converts_to(self, expected: PtrMode) -> bool {
        self == expected || self == PtrMode::ReadWrite
    }
}

pub type Name = String;
pub type SName = Spanned<Name>;

/// An integer literal as written: its value (exact up to 2^128) and its suffix.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct IntLit {
    /// The value; `None` when it does not even fit in 128 bits (always out of range).
    pub value: Option<u128>,
    /// The suffix as written, lower-cased, without a leading `_` (`""` when absent).
    pub suffix: String,
}

/// A floating literal: `1.5`, `2.5E3`, `1.25f`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct FloatLit {
    pub value: f64,
    /// `true` for the `f`/`F` suffix (type `float`), `false` for `double`.
    pub single: bool,
}

// ---------------------------------------------------------------------------------------------
// Type expressions
// ---------------------------------------------------------------------------------------------

pub type TypeExpr = Spanned<TypeExprKind>;

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum TypeExprKind {
    /// A name: `int`, `double`, `bool`, `unit`, `void`, a typedef, a struct or variant, a type
    /// parameter.
    Name(Name),
    /// An integer literal used as a type: the unitsum `n`.
    Unitsum(IntLit),
    /// `()`: the unit type.
    Unit,
    /// `A * B * C`: an n-ary chain (never flattened through parentheses), at least 2 operands.
    Product(Vec<TypeExpr>),
    /// `A + B + C`.
    Sum(Vec<TypeExpr>),
    /// `A \* B \* C`.
    CProduct(Vec<TypeExpr>),
    /// `A \+ B \+ C`.
    CSum(Vec<TypeExpr>),
    /// `T ^ I`.
    Array(Box<TypeExpr>, Box<TypeExpr>),
    /// `T \^ I`.
    CArray(Box<TypeExpr>, Box<TypeExpr>),
    /// `A -> B`.
    Fun(Box<TypeExpr>, Box<TypeExpr>),
    /// ``N `+ M`` and friends.
    UnitsumArith(UnitsumOp, Box<TypeExpr>, Box<TypeExpr>),
    /// `pair[int]`, `grid[3 \* 4]`, `tree[T]`: a parametric typedef, struct or variant applied
    /// to type arguments (at least one).
    Apply(SName, Vec<TypeExpr>),
    /// `(a:int, b:string)`: a record type, fields as written (at least one).
    Record(Vec<(SName, TypeExpr)>),
    /// `&T`, `&<T`, `&>T`.
    Ptr(PtrMode, Box<TypeExpr>),
    /// `_pclt<D, C>`, `_rpclt<D, C>`, `_wpclt<D, C>`.
    CPtr(PtrMode, Box<TypeExpr>, Box<TypeExpr>),
    /// `secret T` (`true`) or `public T` (`false`): the visibility qualifier. It
    /// binds like a pointer's `&`: `secret int ^ 3` is `(secret int) ^ 3`.
    Visibility(bool, Box<TypeExpr>),
    /// `distributed T ^ I`: the distribution qualifier, over a whole power (`distributed
    /// double ^ 4 ^ 5` qualifies the array of arrays).
    Distributed(Box<TypeExpr>),
    /// `extend A, B with C end`: the type of `extend a, b with c end`.
    Extend(Vec<TypeExpr>, Box<TypeExpr>),
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnitsumOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

// ---------------------------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------------------------

pub type Expr = Spanned<ExprKind>;

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum ExprKind {
    Int(IntLit),
    Float(FloatLit),
    /// A string literal (bytes, escapes already processed). Adjacent literals are *not* merged
    /// by the parser: `"ab" "cd"` is an application.
    Str(Vec<u8>),
    /// A format string `f"…"`: its text; the checker reads the conversions.
    Format(Vec<u8>),
    Bool(bool),
    /// `()`.
    Unit,
    /// A plain name (including `\sum`, `\prod`, type names used as conversions, constructors).
    Name(Name),
    /// A qualified name `Typing::memcount`: the path segments.
    Qualified(Vec<Name>),
    /// Explicit instantiation `f[int, 3 \* 2]`, `M::f[int]`.
    TypeApply(Box<Expr>, Vec<TypeExpr>),
    /// A qualified name whose modules are given type arguments, as Felix allows on every
    /// segment: `Show[int]::show`, `X[long]::f[int]`. Each segment with its type arguments
    /// (none: empty).
    QualifiedArgs(Vec<(SName, Vec<TypeExpr>)>),
    /// `a, b, c` (at least 2).
    Tuple(Vec<Expr>),
    /// `a \, b \, c` (at least 2).
    CTuple(Vec<Expr>),
    /// `(a=1, b="x")`: a record, fields in source order (at least one).
    Record(Vec<(SName, Expr)>),
    /// Application. `how` records the surface form for diagnostics only.
    Apply {
        func: Box<Expr>,
        arg: Box<Expr>,
        how: ApplyForm,
    },
    /// `x.rhs` where `rhs` is a name, an integer literal, or a parenthesised expression
    /// (`y.(i \, j)`, `x.(`1:2)`). Meaning decided by the checker: projection, field,
    /// indexing or reverse application.
    Dot(Box<Expr>, Box<Expr>),
    /// `#f` = `f ()`.
    Hash(Box<Expr>),
    /// `&x`, `&<x`, `&>x` (also `&x.i`: the operand is the whole projection chain, which
    /// means `(&x).i`): a pointer.
    Addr(PtrMode, Box<Expr>),
    /// `*p`: the value `p` points at.
    Deref(Box<Expr>),
    /// `s.[i]`.
    StrIndex(Box<Expr>, Box<Expr>),
    /// `s.[i to j]`, `s.[i to]`, `s.[to j]`.
    StrSlice(Box<Expr>, Option<Box<Expr>>, Option<Box<Expr>>),
    /// `x.(i..j)`, `x.(i..<j)`, `x.(i..)`, `x.(..j)`, `x.(..<j)`: the elements (components,
    /// characters) from `i` to `j`, `j` included when `inclusive`.
    Slice {
        base: Box<Expr>,
        from: Option<Box<Expr>>,
        to: Option<Box<Expr>>,
        inclusive: bool,
    },
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// The built-in operator itself, never a user definition of its symbol: the body of an
    /// operator C binding `fun == : A * A -> bool = "$1==$2";`.
    BuiltinBinary(BinOp, Box<Expr>, Box<Expr>),
    Unary(UnOp, Box<Expr>),
    /// `caseno e`.
    Caseno(Box<Expr>),
    /// `case k of T`.
    Case(IntLit, TypeExpr),
    /// `` `k:n `` and `` `k of n ``; `n` is a type expression (normally a unitsum).
    UnitsumValue(IntLit, TypeExpr),
    /// `proj k of T`.
    Proj(IntLit, TypeExpr),
    /// `aproj e of T`.
    Aproj(Box<Expr>, TypeExpr),
    /// `ident of T`.
    Ident(TypeExpr),
    /// `e :>> T`.
    Coerce(Box<Expr>, TypeExpr),
    /// `fun (x:int) => e`, `fun (x:int) : T = { … }`, `proc (x:int) { … }`, `gen …`.
    Lambda(Box<FunDef>),
    /// `if c1 then e1 elif c2 then e2 else e3 endif` (`else` required).
    If(Vec<(Expr, Expr)>, Box<Expr>),
    /// `match e with | p => e … endmatch`.
    Match(Box<Expr>, Vec<MatchArm<Expr>>),
    /// `let p = e in body`: the value and its one arm (`| p => body`), matched as `match`
    /// matches.
    Let(Box<Expr>, Box<MatchArm<Expr>>),
    /// `let fun f (x: int) => e in body` (or a function defined by matching): the function is
    /// defined for `body` only, as in Felix's block expression (`desugar::block_value`).
    LetFun(Box<FunDef>, Box<Expr>),
    /// `f of (T)`: the overload of `f`, or the constructor, taking a `T`.
    OfType(Box<Expr>, TypeExpr),
    /// `extend a, b with c end`: Felix's extension of records (the fields of all, a later
    /// one replacing an earlier one of the same name) or of tuples (the components of all).
    Extend(Vec<Expr>, Box<Expr>),
    /// Component `index` of `tuple`, which must have exactly `count` components: made by the
    /// parser for the destructuring forms `a, (b, c) := e;`, `val a, b = e;`, tuple assignment,
    /// `def` and nested tuple parameters.
    Component {
        tuple: Box<Expr>,
        index: u32,
        count: u32,
    },
    /// Placeholder after a syntax error.
    Error,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApplyForm {
    /// `f x`
    Juxtapose,
    /// `f $ x`
    Dollar,
    /// `x |> f`
    Pipe,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    /// `\&`, `\|`, `\^`, `<<`, `>>`.
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    /// `e \in a`, `e in a` and `e \notin a`, `e not in a`.
    In,
    NotIn,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Mod => "%",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "and",
            BinOp::Or => "or",
            BinOp::BitAnd => "\\&",
            BinOp::BitOr => "\\|",
            BinOp::BitXor => "\\^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::In => "\\in",
            BinOp::NotIn => "\\notin",
        }
    }
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
    Plus,
    Not,
    /// `~a`: bitwise complement.
    Compl,
}

// ---------------------------------------------------------------------------------------------
// Patterns
// ---------------------------------------------------------------------------------------------

pub type Pattern = Spanned<PatternKind>;

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum PatternKind {
    /// `_`
    Wildcard,
    /// A name: binds, unless the checker finds a constant constructor of that name (`Dot`).
    Name(Name),
    /// An integer literal, possibly negated (`-1`).
    Int {
        negative: bool,
        lit: IntLit,
    },
    Str(Vec<u8>),
    Bool(bool),
    /// `()`.
    Unit,
    /// `(p, q, …)`.
    Tuple(Vec<Pattern>),
    /// `(a=p, b=q)`: a record by field names; the value may have more fields.
    Record(Vec<(SName, Pattern)>),
    /// `case k` (unitsum or unit summand), `case k p` and `` `k p `` (sum case with argument).
    Case(IntLit, Option<Box<Pattern>>),
    /// `Ctor p`: a variant constructor with an argument pattern (`Circle r`, `Rect (w, h)`).
    Ctor(Name, Box<Pattern>),
    /// `#A`, or a bare name starting with an upper-case letter: a constant constructor, never
    /// a binding.
    Constant(Name),
    /// `lo .. hi`: two literal patterns of one type.
    Range(Box<Pattern>, Box<Pattern>),
    /// `p | q`: the value matches one of the alternatives, tried in order; each binds the same
    /// names with the same types.
    Alt(Vec<Pattern>),
    /// `p as x`: matches `p` and binds the whole value to `x`.
    As(Box<Pattern>, SName),
    /// `$(e)`: matches a value equal to `e` (Felix's `?v when v == e`).
    Expr(Box<Expr>),
    /// A pattern with its own `with` bindings (`p with y = e`, names bound to values computed
    /// from the alternative's names) and `when` guard: an alternative of a `match` arm, or
    /// in parentheses anywhere in one (`| (x when x > 0), y =>`); the bindings and the guard
    /// belong to the alternative that contains it.
    Guarded {
        pattern: Box<Pattern>,
        with: Vec<(SName, Expr)>,
        guard: Option<Box<Expr>>,
    },
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct MatchArm<B> {
    /// One or more alternatives `| 1 | 2 => …`.
    pub patterns: Vec<Pattern>,
    /// `when cond` after the only alternative (a guard among several alternatives belongs
    /// to its alternative: `PatternKind::Guarded`).
    pub guard: Option<Expr>,
    pub body: B,
    pub span: Span,
}

// ---------------------------------------------------------------------------------------------
// Functions
// ---------------------------------------------------------------------------------------------

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FunKind {
    Fun,
    Proc,
    Gen,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum KindExpr {
    Type,
    Unitsum,
    CompactLinear,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct TypeParam {
    pub name: SName,
    /// Defaults to `TYPE` when not written.
    pub kind: KindExpr,
    /// The `with` clause of a function's type parameter list (`[T, U with Str[T], Eq[U]]`),
    /// kept on the list's last parameter; empty everywhere else.
    pub constraints: Vec<Constraint>,
}

/// `C[T]` in a `with` clause: the type class `C` (a name, possibly qualified: `M::C`) at the
/// types `T`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Constraint {
    pub class: SName,
    pub args: Vec<TypeExpr>,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Param {
    pub name: SName,
    pub ty: TypeExpr,
}

/// One parenthesised parameter group: `(x:int, y:int)` (a tuple parameter), `(p : int * int)`,
/// or `()` (unit).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct ParamGroup {
    pub params: Vec<Param>,
    pub span: Span,
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum FunBody {
    /// `=> e`
    Expr(Expr),
    /// `= { stmts }` (fun, gen) or `{ stmts }` (proc)
    Block(Vec<Stmt>),
}

/// A function's body, which the library's stored tree (`syntax::stored`) decodes on first
/// use: a program calls few of the library's functions, and decoding every body was most of
/// a start-up. A parsed body is held decoded; the tree is read through `Deref`.
#[derive(Clone)]
pub struct LazyBody {
    body: std::sync::OnceLock<FunBody>,
    /// The body's own stored encoding; empty for a body the parser made.
    stored: Box<[u8]>,
}

impl LazyBody {
    fn get(&self) -> &FunBody {
        self.body.get_or_init(|| {
            // The whole stored tree was checked against the library's text before any of it
            // was read (`stored::decode`), and the tests check that it is the parse.
            postcard::from_bytes(&self.stored).expect("a stored function body decodes")
        })
    }
}

impl From<FunBody> for LazyBody {
    fn from(body: FunBody) -> Self {
        LazyBody {
            body: std::sync::OnceLock::from(body),
            stored: Box::default(),
        }
    }
}

impl std::ops::Deref for LazyBody {
    type Target = FunBody;
    fn deref(&self) -> &FunBody {
        self.get()
    }
}

impl PartialEq for LazyBody {
    fn eq(&self, other: &Self) -> bool {
        self.get() == other.get()
    }
}

impl std::fmt::Debug for LazyBody {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

/// Stored as the bytes of the body's own encoding, which reading the tree copies undecoded.
impl Serialize for LazyBody {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let bytes = postcard::to_allocvec(self.get()).map_err(serde::ser::Error::custom)?;
        serializer.serialize_bytes(&bytes)
    }
}

impl<'de> Deserialize<'de> for LazyBody {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Bytes;
        impl serde::de::Visitor<'_> for Bytes {
            type Value = Box<[u8]>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("the encoding of a function body")
            }
            fn visit_bytes<E: serde::de::Error>(self, bytes: &[u8]) -> Result<Self::Value, E> {
                Ok(bytes.into())
            }
        }
        Ok(LazyBody {
            body: std::sync::OnceLock::new(),
            stored: deserializer.deserialize_bytes(Bytes)?,
        })
    }
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct FunDef {
    pub kind: FunKind,
    /// `None` for a lambda.
    pub name: Option<SName>,
    pub type_params: Vec<TypeParam>,
    /// At least one group for named functions; curried functions have several.
    pub params: Vec<ParamGroup>,
    /// The declared result type (`: T`), if any.
    pub ret: Option<TypeExpr>,
    pub body: LazyBody,
    pub span: Span,
}

// ---------------------------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------------------------

pub type Stmt = Spanned<StmtKind>;

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub enum AssignOp {
    Set,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    /// `&= |= ^= <<= >>=`.
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

/// The iteration forms of `for`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum ForKind {
    /// `for i in ..[T]`: `i` is bound in the body only.
    Type(TypeExpr),
    /// `for v in arr`.
    Array(Expr),
    /// `for i in a ..< b` (declares `i` in the enclosing scope).
    RangeExclusive(Expr, Expr),
    /// `for i in a .. b` (declares `i`).
    RangeInclusive(Expr, Expr),
    /// `for i in a upto b` (assigns an existing `i`, or declares it with `for var`).
    Upto { from: Expr, to: Expr, declare: bool },
    /// `for i in b downto a`.
    Downto { from: Expr, to: Expr, declare: bool },
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `var x : T = e;` (type and initialiser each optional, not both absent).
    Var {
        name: SName,
        ty: Option<TypeExpr>,
        init: Option<Expr>,
    },
    /// `val x : T = e;`; `val [m] ys = e;` also names the run-time sizes of the value (`m`,
    /// an integer `val` that is a size).
    Val {
        name: SName,
        ty: Option<TypeExpr>,
        init: Expr,
        sizes: Vec<SName>,
    },
    /// A named `fun`, `proc` or `gen`.
    /// Shared: the checker keeps a definition for its first use without copying it.
    Fun(std::sync::Arc<FunDef>),
    /// `typedef name = T;`, `typedef pair[T] = T * T;`
    Typedef {
        name: SName,
        /// The type parameters of a parametric typedef (empty otherwise).
        params: Vec<TypeParam>,
        ty: TypeExpr,
    },
    /// `struct P { x:int; y:string; }`, `struct Box[T] { v:T; }`
    Struct {
        name: SName,
        params: Vec<TypeParam>,
        fields: Vec<Param>,
    },
    /// `type K = new R;` (an opaque type represented by `R`, Felix's abstract type), with
    /// the behaviours it grants after `with` (`type K = new R with Eq;`); `type K;` (no
    /// `repr`) declares the opaque type whose representation a `begin … end` block of the same
    /// scope gives.
    NewType {
        name: SName,
        repr: Option<TypeExpr>,
        grants: Vec<SName>,
    },
    /// `variant shape = | Circle of double | Dot;`, `variant tree[T] = | Leaf of T | …;`
    Variant {
        name: SName,
        params: Vec<TypeParam>,
        ctors: Vec<(SName, Option<TypeExpr>)>,
    },
    /// An expression used as a statement: a procedure call `p x;`, `p;`, `println$ …;`.
    Expr(Expr),
    /// `x = e;`, `x += e;`, …
    Assign {
        target: Expr,
        op: AssignOp,
        value: Expr,
    },
    /// `++x;` (`true`) and `--x;` (`false`).
    Incr {
        target: Expr,
        up: bool,
    },
    /// `&x.i <- v;` — `target` is the projection chain after `&`.
    Store {
        target: Expr,
        value: Expr,
    },
    /// `p <- v;` for any pointer expression `p`.
    StoreAt {
        pointer: Expr,
        value: Expr,
    },
    Return(Option<Expr>),
    /// `assert e;`.
    Assert(Expr),
    /// `if c do … elif c2 do … else … done`, `if c perform s;`, `if c break l;`.
    If {
        branches: Vec<(Expr, Vec<Stmt>)>,
        otherwise: Option<Vec<Stmt>>,
    },
    /// `if c then … endif` used as a statement: always an error (E0101), kept so the checker
    /// can report it with a helpful message.
    IfThenStatement(Expr),
    While {
        label: Option<SName>,
        cond: Expr,
        body: Vec<Stmt>,
    },
    Until {
        label: Option<SName>,
        cond: Expr,
        body: Vec<Stmt>,
    },
    Repeat {
        label: Option<SName>,
        body: Vec<Stmt>,
    },
    For {
        label: Option<SName>,
        var: SName,
        kind: ForKind,
        body: Vec<Stmt>,
    },
    Break(SName),
    Continue(SName),
    /// `name:>`: a label, the target of `goto name;` in its statement list.
    Label(SName),
    /// `goto name;`: jump to a label of an enclosing statement list of the same function.
    Goto(SName),
    /// `begin … end`.
    Block(Vec<Stmt>),
    /// Statements made by the parser from one source statement (the destructuring forms `def`,
    /// `val a, b = e;` and `:=`): checked in order in the enclosing scope, opening none.
    Seq(Vec<Stmt>),
    /// `match e with | p => stmts … endmatch;`
    Match(Expr, Vec<MatchArm<Vec<Stmt>>>),
    /// Modules, type classes, instances, `open` and virtual functions (`ModuleItem`).
    Module(Box<ModuleItem>),
    /// Placeholder after a syntax error.
    Error,
}

/// The statements of Felix's modules and type classes.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum ModuleItem {
    /// `module M { … }` and `module X[t] { … }`; `class C[T] { … }` when `class` is set.
    Module {
        name: SName,
        params: Vec<TypeParam>,
        body: Vec<Stmt>,
        class: bool,
    },
    /// `instance C[int] { … }`, `instance[U] C[list[U]] { … }`.
    Instance {
        params: Vec<TypeParam>,
        class: SName,
        args: Vec<TypeExpr>,
        body: Vec<Stmt>,
    },
    /// `open M;`, `open X[long];`; `inherit M;` when `inherit` is set.
    Open {
        module: SName,
        args: Vec<TypeExpr>,
        inherit: bool,
    },
    /// `virtual fun f: T -> R;` (`def.body` is an empty block and `bodiless` is set) or
    /// `virtual fun f (x:T) => e;` (a default body).
    Virtual {
        def: std::sync::Arc<FunDef>,
        bodiless: bool,
    },
}

/// A REPL chunk after parsing.
#[derive(Clone, Debug, PartialEq)]
pub enum Chunk {
    /// Exactly one expression with no trailing `;`: evaluate and print `VALUE : TYPE`.
    Expr(Expr),
    /// Anything else: statements, run as in a script.
    Stmts(Vec<Stmt>),
}
