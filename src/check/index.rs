//! What an editor asks of a checked unit: the type of every expression by its span, and for
//! every use of a name the definition it resolves to (`tessera lsp`).
//!
//! Recording is off unless asked for ([`Checker::check_program_indexed`]): the checker then
//! notes uses and types as it resolves them, into a table shared by the checker's snapshots
//! (a speculative check that is rolled back may leave a note, which only adds a candidate
//! for the same span). Nothing here does IO; the evaluator never sees it.

use std::sync::{Arc, Mutex};

use super::env::{Binding, ScopeId, TypeBinding, VarType};
use super::Checker;
use crate::core::ir::Unit;
use crate::diag::Diagnostic;
use crate::syntax::ast::Stmt;
use crate::syntax::span::Span;
use crate::types::ty::{NominalDef, Type};

/// What a name denotes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DefKind {
    Val,
    Var,
    Fun,
    Type,
    Field,
    Ctor,
}

/// A definition a use resolves to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    pub name: String,
    pub kind: DefKind,
    /// The name's span in its source (a function's: its whole definition).
    pub span: Span,
    /// Defined by an earlier unit (the prelude), not by the unit checked.
    pub library: bool,
}

/// One use of a name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Use {
    /// Where the name is written (for a pattern's constructor: the pattern).
    pub span: Span,
    pub target: Target,
}

/// One definition of the unit: its name's span, what it is, and its type once known.
#[derive(Clone, Debug)]
pub struct Def {
    pub target: Target,
    pub ty: Option<Type>,
}

/// What the checker learnt about one unit.
#[derive(Clone, Debug, Default)]
pub struct Index {
    /// The type of every expression checked, by its span, inference solved.
    pub types: Vec<(Span, Type)>,
    /// Every use of a name, in the order checked.
    pub uses: Vec<Use>,
    /// Every definition of the unit (variables, functions, types, fields, constructors).
    pub defs: Vec<Def>,
}

/// The table being filled while a unit is checked with recording on.
#[derive(Clone, Debug, Default)]
pub(crate) struct Recorder {
    index: Index,
    /// The variables declared, by scope, to read their types from at the end.
    vars: Vec<(ScopeId, usize)>,
}

pub(crate) type Shared = Arc<Mutex<Recorder>>;

/// Where struct fields are declared: by struct (its declaration's id) and field name, the
/// field's span and scope.
pub(crate) type FieldSpans = std::collections::HashMap<(u32, Arc<str>), (Span, ScopeId)>;

impl Checker {
    /// Check a whole program like [`Checker::check_program`] and return, whatever the outcome,
    /// the index of what was resolved (for an editor).
    pub fn check_program_indexed(
        &mut self,
        stmts: &[Stmt],
    ) -> (Result<Unit, Vec<Diagnostic>>, Index) {
        let shared: Shared = Arc::default();
        self.unit.index = Some(shared.clone());
        let result = self.check_program(stmts);
        self.unit.index = None;
        let recorder = std::mem::take(&mut *shared.lock().unwrap_or_else(|e| e.into_inner()));
        (result, recorder.index)
    }

    fn record(&self, f: impl FnOnce(&mut Recorder)) {
        if let Some(shared) = &self.unit.index {
            f(&mut shared.lock().unwrap_or_else(|e| e.into_inner()));
        }
    }

    /// Is recording on?
    pub(crate) fn indexing(&self) -> bool {
        self.unit.index.is_some()
    }

    /// Note the type of an expression.
    pub(crate) fn note_type(&self, span: Span, ty: &Type) {
        if self.indexing() && !span.is_empty() {
            self.record(|r| r.index.types.push((span, ty.clone())));
        }
    }

    fn library(&self, scope: ScopeId) -> bool {
        scope < self.unit.unit_scope
    }

    fn note_use(&self, span: Span, name: &str, kind: DefKind, def: Span, scope: ScopeId) {
        let target = Target {
            name: name.to_string(),
            kind,
            span: def,
            library: self.library(scope),
        };
        self.record(|r| r.index.uses.push(Use { span, target }));
    }

    /// Note a use of a variable.
    pub(crate) fn note_var_use(&self, span: Span, name: &str, vb: &super::env::VarBinding) {
        if self.indexing() {
            let kind = if vb.mutable {
                DefKind::Var
            } else {
                DefKind::Val
            };
            self.note_use(span, name, kind, vb.span, vb.scope);
        }
    }

    /// Note a use of the function `idx` (a call or a function value).
    pub(crate) fn note_fun_use(&self, span: Span, idx: usize) {
        if self.indexing() {
            let sig = &self.funs[idx];
            self.note_use(span, &sig.name, DefKind::Fun, sig.span, sig.scope);
        }
    }

    /// Note a use of a constructor by name.
    pub(crate) fn note_ctor_use(&self, span: Span, name: &str) {
        if !self.indexing() {
            return;
        }
        if let Some((scope, Binding::Ctor { span: def, .. })) = self.find_value(name) {
            self.note_use(span, name, DefKind::Ctor, def, scope);
        }
    }

    /// Note a use of a type name.
    pub(crate) fn note_type_use(&self, span: Span, name: &str) {
        if !self.indexing() {
            return;
        }
        let mut s = Some(self.scope);
        while let Some(id) = s {
            if let Some((binding, def)) = self.scopes[id].types.get(name) {
                if !matches!(binding, TypeBinding::Param(_)) {
                    self.note_use(span, name, DefKind::Type, *def, id);
                }
                return;
            }
            s = self.scopes[id].parent;
        }
    }

    /// Note a use of the field `field` of the struct `nominal`.
    pub(crate) fn note_field_use(&self, span: Span, nominal: &NominalDef, field: &str) {
        if !self.indexing() {
            return;
        }
        let id = nominal.instance.as_ref().map_or(nominal.id, |(d, _)| d.id);
        if let Some((def, scope)) = self.field_spans.get(&(id, field.into())) {
            self.note_use(span, field, DefKind::Field, *def, *scope);
        }
    }

    /// Note the fields of a struct declared in the current scope (kept for the session, so a
    /// later unit's uses find them).
    pub(crate) fn note_fields(&mut self, nominal: u32, fields: &[crate::syntax::ast::Param]) {
        if !self.indexing() {
            return;
        }
        let scope = self.scope;
        let spans = Arc::make_mut(&mut self.field_spans);
        for f in fields {
            spans.insert((nominal, f.name.node.as_str().into()), (f.name.span, scope));
        }
        for f in fields {
            self.note_def(&f.name.node, DefKind::Field, f.name.span, None);
        }
    }

    /// Note a definition of the unit (a variable's type is read at the end of the unit).
    pub(crate) fn note_def(&self, name: &str, kind: DefKind, span: Span, ty: Option<Type>) {
        if !self.indexing() {
            return;
        }
        let scope = self.scope;
        let target = Target {
            name: name.to_string(),
            kind,
            span,
            library: false,
        };
        self.record(|r| {
            if matches!(kind, DefKind::Val | DefKind::Var) {
                r.vars.push((scope, r.index.defs.len()));
            }
            r.index.defs.push(Def { target, ty });
        });
    }

    /// The binding of a value name and the scope it is in.
    fn find_value(&self, name: &str) -> Option<(ScopeId, Binding)> {
        let mut s = Some(self.scope);
        while let Some(id) = s {
            if let Some(b) = self.scopes[id].values.get(name) {
                return Some((id, b.clone()));
            }
            s = self.scopes[id].parent;
        }
        None
    }

    /// At the end of a unit: inference solved in the recorded types, the variables' types
    /// read from their bindings.
    pub(crate) fn finish_index(&mut self) {
        let Some(shared) = self.unit.index.clone() else {
            return;
        };
        let mut r = shared.lock().unwrap_or_else(|e| e.into_inner());
        let types = std::mem::take(&mut r.index.types);
        r.index.types = types
            .into_iter()
            .map(|(span, t)| (span, self.zonk(&t)))
            .collect();
        for def in r.index.defs.iter_mut() {
            if def.target.kind == DefKind::Fun && def.ty.is_none() {
                let span = def.target.span;
                let found = (0..self.funs.len()).find(|&i| {
                    let sig = &self.funs[i];
                    sig.name == def.target.name
                        && sig.span.start <= span.start
                        && span.end <= sig.span.end
                });
                def.ty = found.map(|i| self.fun_type_of(i));
            }
        }
        let vars = std::mem::take(&mut r.vars);
        for (scope, at) in vars {
            let name = r.index.defs[at].target.name.clone();
            let ty = match (scope < self.scopes.len())
                .then(|| &self.scopes[scope])
                .and_then(|s| s.values.get(&name))
            {
                Some(Binding::Var(vb)) if vb.span == r.index.defs[at].target.span => match &vb.ty {
                    VarType::Known(t) => Some(self.zonk(t)),
                    _ => None,
                },
                _ => r.index.defs[at].ty.as_ref().map(|t| self.zonk(t)),
            };
            r.index.defs[at].ty = ty;
        }
    }
}
