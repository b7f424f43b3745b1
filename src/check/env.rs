//! Scopes, bindings and frames.
//!
//! Scopes form a tree (an arena with parent links): the session's global scopes (prelude, then
//! each program or REPL chunk nested in the previous one), function bodies and `begin … end`
//! blocks. Every scope belongs to a *frame*: the global frame (slots are global slots)
//! or a function's frame (slots are that function's locals). A name used in a function but
//! bound in an enclosing function's frame is captured (copied for parameters, shared through a
//! cell for variables).

use std::collections::HashSet;

use rustc_hash::FxHashMap as HashMap;
use std::sync::Arc;

use crate::core::ir::{Capture, FunId, LabelId, Slot};
use crate::syntax::ast;
use crate::syntax::span::Span;
use crate::types::ty::{NominalDef, TyVar, Type};

pub type ScopeId = usize;
pub type FrameId = usize;

/// Where a variable lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VarLoc {
    pub frame: FrameId,
    pub slot: Slot,
    /// The slot holds a cell (the variable is captured by an inner function).
    pub cell: bool,
}

#[derive(Clone, Debug)]
pub enum VarType {
    Known(Type),
    /// Declared without a type annotation and not yet checked: the initialiser is checked on
    /// demand (hoisting) or when the declaration is reached.
    Pending,
    /// Being inferred right now (a cycle means the variable is used in its own initialiser).
    InProgress,
}

#[derive(Clone, Debug)]
pub struct VarBinding {
    pub loc: VarLoc,
    pub ty: VarType,
    pub mutable: bool,
    pub span: Span,
    /// The declaration statement, for on-demand checking of its initialiser.
    pub decl: Option<Arc<ast::Stmt>>,
    /// The scope the declaration is in.
    pub scope: ScopeId,
}

impl VarBinding {
    /// Where the variable's type is written (its annotation), else where it is declared.
    pub fn declared_type_span(&self) -> Span {
        self.decl
            .as_ref()
            .and_then(|d| match &d.node {
                ast::StmtKind::Var { ty: Some(t), .. } | ast::StmtKind::Val { ty: Some(t), .. } => {
                    Some(t.span)
                }
                _ => None,
            })
            .unwrap_or(self.span)
    }
}

/// A function's signature; the return type is `None` until inferred.
#[derive(Clone, Debug)]
pub struct FunSig {
    pub id: FunId,
    pub name: String,
    pub kind: ast::FunKind,
    /// The function's own type parameters.
    pub own_params: Vec<TyVar>,
    /// Type parameters of enclosing generic functions (they prefix `Function::type_params`).
    pub outer_params: Vec<TyVar>,
    /// One type per curried parameter group.
    pub groups: Vec<Type>,
    pub ret: Option<Type>,
    /// The inference variable standing for the result type while the body of a function
    /// without a declared result type is being checked and the function is called
    /// recursively; unified with the body's type at the end.
    pub ret_meta: Option<Type>,
    pub span: Span,
    /// Where the closure is kept, for a non-generic function nested in a function frame.
    pub holder: Option<VarLoc>,
    pub def: Arc<ast::FunDef>,
    /// The function's own scope (parameters, type parameters, body) and frame.
    pub scope: ScopeId,
    pub frame: FrameId,
    /// One pattern per parameter group, binding the parameters in the function's frame.
    pub params: Vec<crate::core::ir::Pattern>,
    /// Body checking state.
    pub state: FunState,
    pub pure_: bool,
    /// Declared by the library (the prelude): its body is checked when a later unit first
    /// uses it, and its IR, whichever unit it lands in, has its spans in the library's source.
    pub library: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FunState {
    Unchecked,
    /// A top-level library function nobody has used yet: its body is checked on first use
    /// (a call or a value), in the library's scope, and its IR joins the unit using it.
    /// Most programs use a few of the prelude's functions, so loading the prelude checks
    /// only signatures.
    Deferred,
    InProgress,
    Done,
}

#[derive(Clone, Debug)]
pub enum Binding {
    Var(VarBinding),
    /// One or more overloads (indices into `Checker::funs`).
    Funs(Vec<usize>),
    /// A variant constructor.
    Ctor {
        nominal: Arc<NominalDef>,
        index: u32,
        span: Span,
    },
    /// The representation functions of opaque types declared in this scope: `_make_K` (one
    /// type) or `_repr_` (every opaque type of the scope), with their declarations' spans.
    Opaque {
        make: bool,
        types: Vec<(Arc<NominalDef>, Span)>,
    },
}

#[derive(Clone, Debug)]
pub enum TypeBinding {
    /// A typedef not yet resolved.
    PendingAlias(Arc<ast::TypeExpr>, ScopeId),
    /// A typedef being resolved (cycle detection).
    ResolvingAlias,
    Alias(Type),
    /// A parametric typedef not yet resolved: its parameters, body and scope.
    PendingGeneric(Arc<[ast::TypeParam]>, Arc<ast::TypeExpr>, ScopeId),
    /// A parametric typedef (`typedef pair[T] = T * T;`): its parameters and its body over
    /// them.
    Generic(Vec<TyVar>, Type),
    /// A struct or variant; parametric when the definition has `params`.
    Nominal(Arc<NominalDef>),
    Param(TyVar),
}

#[derive(Clone, Debug)]
pub struct Scope {
    pub parent: Option<ScopeId>,
    pub values: HashMap<String, Binding>,
    pub types: HashMap<String, (TypeBinding, Span)>,
    /// Declarations of this scope by the span of their statement, so the checker finds the
    /// binding it hoisted when it reaches the statement.
    pub decls: HashMap<Span, String>,
}

impl Scope {
    pub fn new(parent: Option<ScopeId>) -> Scope {
        Scope {
            parent,
            values: HashMap::default(),
            types: HashMap::default(),
            decls: HashMap::default(),
        }
    }
}

/// A function frame being checked (or the global frame).
#[derive(Clone, Debug)]
pub struct Frame {
    pub parent: Option<FrameId>,
    pub global: bool,
    pub n_slots: u32,
    pub cell_slots: Vec<Slot>,
    /// Captures: the key is the variable's location in the frame it lives in.
    pub captures: Vec<(VarLoc, Capture)>,
    /// Names used inside functions nested in this frame (variables with these names get cells).
    pub captured_names: HashSet<String>,
    /// All type parameters visible in this frame (outer first).
    pub type_params: Vec<TyVar>,
    /// Run-time sizes of enclosing frames that this frame's types mention: type parameters
    /// after `type_params`, given by every `MakeFun` of the function (`check::sizes`).
    pub borrowed_sizes: Vec<TyVar>,
    pub kind: ast::FunKind,
    /// The declared or inferred result type.
    pub ret: Option<Type>,
    pub labels: Vec<(String, LabelId)>,
    pub next_label: LabelId,
    /// The labels (`name:>`) of the statement lists being checked, outer first.
    pub gotos: Vec<crate::check::goto::GotoLabel>,
    /// Effects seen (output, proc/gen calls, assignments outside the frame): not pure.
    pub impure: bool,
}

impl Frame {
    pub fn new(parent: Option<FrameId>, global: bool) -> Frame {
        Frame {
            parent,
            global,
            n_slots: 0,
            cell_slots: Vec::new(),
            captures: Vec::new(),
            captured_names: HashSet::new(),
            type_params: Vec::new(),
            borrowed_sizes: Vec::new(),
            kind: ast::FunKind::Fun,
            ret: None,
            labels: Vec::new(),
            next_label: 0,
            gotos: Vec::new(),
            impure: false,
        }
    }

    pub fn alloc(&mut self) -> Slot {
        let s = self.n_slots;
        self.n_slots += 1;
        s
    }

    /// The index of the capture of `loc` in this frame, adding it with `source` if new.
    pub fn capture(&mut self, loc: VarLoc, source: Capture) -> u32 {
        if let Some(i) = self.captures.iter().position(|(l, _)| *l == loc) {
            return i as u32;
        }
        self.captures.push((loc, source));
        (self.captures.len() - 1) as u32
    }
}
