//! The checker: names, scopes, types, kinds, overloads; produces the typed IR (`core::ir`).
//!
//! Architecture invariant: all typing complexity (overloads, implicit conversions, inference,
//! polymorphism, hoisting) lives here; the IR it produces has resolved kernels, resolved
//! slots and explicit conversions. The checker does no IO.

mod alternatives;
mod apply;
mod arity;
pub mod browse;
mod build;
mod class;
mod coerce;
mod cow;
mod darray;
mod dist_halo;
pub mod distributed;
mod env;
pub mod error;
mod expr;
mod extend;
mod flow;
mod function;
mod functor;
mod goto;
mod hoist;
pub mod index;
mod library;
mod module;
mod name;
pub(crate) mod opaque;
mod operator;
mod pattern;
mod pointer;
mod polyrec;
pub mod prims;
mod project;
mod record;
pub(crate) mod scheme;
pub mod secret;
mod size_names;
mod sizes;
mod slice;
mod stmt;
mod suggest;
#[cfg(test)]
mod tests;
pub mod traits;
mod typeexpr;
mod unify;
mod var;
mod zonk;

use std::sync::Arc;

use crate::core::ir::{self, FunId, Unit};
use crate::diag::Diagnostic;
use crate::syntax::ast::{Chunk, Expr, Stmt, TypeExpr};
use crate::syntax::span::Span;
use crate::types::ty::{Kind, Type};

use cow::CowVec;
use env::{Frame, FrameId, FunSig, Scope, ScopeId};
use error::CheckError;

/// The checker: the state of a session that persists from one unit to the next (the global
/// scopes: the prelude, then each program or REPL chunk as a new nested scope; the function
/// signatures, the counters and caches), the context of the unit being checked (`unit`), and
/// what only `secret` needs (`secret`).
#[derive(Clone)]
pub struct Checker {
    scopes: CowVec<Scope>,
    frames: CowVec<Frame>,
    funs: CowVec<FunSig>,
    /// The innermost global scope (where the next unit nests).
    top: ScopeId,
    /// Current position while checking.
    scope: ScopeId,
    frame: FrameId,
    next_fun: FunId,
    next_tyvar: u32,
    next_nominal: u32,
    /// The unit being checked is the library's (the prelude).
    library_source: bool,
    /// The run-time sizes declared so far (`sizes.rs`).
    sizes: Vec<sizes::RunTimeSize>,
    /// Inference variables: solution and kind bound.
    metas: CowVec<(Option<Type>, Kind)>,
    /// The behaviours a generic body asked of its type parameters (by `TyVar::id`), checked
    /// against the type arguments of each instantiation (`traits.rs`).
    requirements: Arc<std::collections::HashMap<u32, Vec<traits::Behaviour>>>,
    /// The primitive table's schemes, resolved once per session (shared by clones).
    schemes: scheme::SchemeCache,
    /// The scope of the prelude (the first unit), where schemes are resolved.
    prelude_scope: Option<ScopeId>,
    /// The implementation blocks of opaque types (`begin … end` giving `type K = new R;` for a
    /// `type K;` of its scope), by statement span: their scope, created and hoisted with the
    /// enclosing scope so their functions are visible there.
    impl_blocks: std::collections::HashMap<crate::syntax::span::Span, ScopeId>,
    /// Non-local gotos and the closures that hold them (`goto.rs`).
    jumps: goto::Jumps,
    /// Run the IR validator on every unit in release builds too (`--validate`); debug builds
    /// always run it.
    validate: bool,
    /// The declarations of struct fields (by struct and field name: the field's span and
    /// scope), noted while indexing for an editor (`index.rs`).
    field_spans: Arc<index::FieldSpans>,
    /// Modules, opens, classes and instances (`module.rs`, `class.rs`).
    pub(crate) modules: module::ModuleState,
    /// The unit being checked: its output and the work left for its end.
    pub(crate) unit: UnitContext,
    /// The state of visibility checking (`secret.rs`).
    pub(crate) secret: SecretState,
}

/// What the checking of one unit produces and keeps until the unit ends.
#[derive(Clone, Default)]
pub(crate) struct UnitContext {
    pub(crate) errors: Vec<CheckError>,
    /// The names bound by the alternatives of the arm being checked (`alternatives.rs`).
    pub(crate) alt_names: Option<alternatives::AltNames>,
    /// What the pattern being checked leaves to do once it matched: the `with` bindings and
    /// guards inside it and its `$(e)` tests (`alternatives.rs`).
    pub(crate) pattern_steps: Vec<alternatives::Step>,
    /// The current nesting depth of expressions being checked.
    pub(crate) depth: u32,
    /// Functions produced by the unit being checked.
    pub(crate) out_funs: Vec<(FunId, Arc<ir::Function>)>,
    /// The functions of `out_funs` whose bodies are the library's (`FunState::Deferred`).
    pub(crate) out_library_funs: Vec<FunId>,
    /// Function values made away from the frame their function captures from (the frame
    /// making it, the function's index): `Closure`s whose captures are filled in when that
    /// frame's function is complete (`var::resolve_closures`).
    pub(crate) pending_closures: Vec<(env::FrameId, usize)>,
    /// Set when a recursive call got an inference variable as its result type: the
    /// unit's IR is zonked once more at the end.
    pub(crate) recursion_metas: bool,
    /// Variables whose own initialiser is being checked (scope, name): invisible there, so the
    /// name refers to an outer binding.
    pub(crate) hidden: Vec<(ScopeId, String)>,
    /// Instances of parametric variants made with fresh type arguments by constructors, with
    /// their spans: each must be solved by the end of the unit (E0302).
    pub(crate) open_instances: Vec<(Span, Type)>,
    /// The global variables declared by the unit being checked.
    pub(crate) out_globals: Vec<ir::GlobalDef>,
    /// How the result types of operators were derived (`promote(int8, int32)`), by the span
    /// of the application: `:type -v`.
    pub(crate) derivations: Vec<(Span, String)>,
    /// Variables of the unit whose initialiser's type was still being inferred: solved by
    /// the end of the unit, or E0302 there.
    pub(crate) deferred_vars: Vec<(Span, env::VarBinding, String, Type)>,
    /// `where` clauses of schemes applied while their operands were still being inferred
    /// (`val j = join;`): applied once inference knows them, by the end of the unit.
    pub(crate) pending_functors: Vec<prims::PendingFunctor>,
    /// Applications of primitives whose result type only the context gives (`val a : double ^
    /// 3 = load_npy f;`), with the primitive's call form: solved by the end of the unit, or
    /// E0302 there.
    pub(crate) expected_results: Vec<(Span, &'static str, Type)>,
    /// While an implementation block is hoisted: the opaque types it completes, by (its
    /// scope, name).
    pub(crate) completing:
        std::collections::HashMap<(ScopeId, String), std::sync::Arc<crate::types::ty::NominalDef>>,
    /// The first scope of the unit being checked.
    pub(crate) unit_scope: ScopeId,
    /// The run-time sizes made by applications (`filter`) in the statement being checked
    /// and not yet bound to a variable (`sizes.rs`).
    pub(crate) fresh_sizes: Vec<crate::types::ty::TyVar>,
    /// Assignments of hidden variables that the statement being checked needs first (sizes
    /// given by arguments, `sizes.rs`).
    pub(crate) pre_stmts: Vec<ir::Stmt>,
    /// Uses of a variable whose early look at its initialiser failed (`var.rs`), with the
    /// variable's name: reported by the end of the unit unless another error explains them.
    pub(crate) early_failures: Vec<(Span, String)>,
    /// The type of the last unit's result expression before erasure (`:type`).
    pub(crate) result_type: Option<Type>,
    /// Where uses and types are recorded for an editor, when asked (`index.rs`).
    pub(crate) index: Option<index::Shared>,
}

/// What only visibility checking (`secret`) needs.
#[derive(Clone, Default)]
pub(crate) struct SecretState {
    /// Has the session written `secret` (in this unit or an earlier one)? Then each unit's IR
    /// is erased of it at the end; a session that never does pays nothing.
    pub(crate) written: bool,
    /// Has the session written `distributed`? Then each unit's IR is erased of it too.
    pub(crate) distributed: bool,
    /// The `for i in ..[I]` loops being checked, innermost last, where distributed arrays
    /// indexed by `I` may be read and stored at `i` (`distributed.rs`).
    pub(crate) owned_loops: Vec<distributed::OwnedLoop>,
    /// The variables declared in the bodies of loops over owned positions, which Felix hoists
    /// out of the loop: after it each process holds its own last value, so a read there
    /// is E0810 (with the loop's span).
    pub(crate) owned_loop_vars: Vec<(env::VarLoc, Span)>,
    /// Reads of variables whose type mentions `secret` in the unit being checked: the read,
    /// the name, and the declaration when it is in this unit (`secret.rs` names them).
    pub(crate) reads: Vec<secret::SecretRead>,
    /// Variables that are secret because their initial value was, by declaration: the secret
    /// variable (declared with `secret`) that value came from.
    pub(crate) roots: std::collections::HashMap<Span, (String, Span)>,
    /// The visibility instances of functions checked so far (`secret.rs`): the function, the
    /// parameter groups it was checked with, and the result type (`None`: its body reveals
    /// a secret parameter, and the error that says how).
    pub(crate) instances: Vec<secret::SecretInstance>,
    /// Inside a visibility instance: the function being checked again.
    pub(crate) in_instance: bool,
    /// Variables declared without a type (by declaration span) that a visibility instance
    /// assigns a secret to, and those it declares secret when it checks the body once more.
    pub(crate) vars_wanted: Vec<Span>,
    pub(crate) vars_forced: std::collections::HashSet<Span>,
    /// While the unit's IR is erased of visibility (`zonk.rs`).
    pub(crate) erasing: bool,
}

impl Default for Checker {
    fn default() -> Self {
        Checker::new()
    }
}

/// The type given to expressions that failed to check; it unifies with everything, so one
/// error does not cascade.
/// The implicit integer widenings (for the IR validator).
pub fn unify_widens_to(from: crate::types::IntTy, to: crate::types::IntTy) -> bool {
    traits::widens_to(from, to)
}

pub(crate) const ERROR_META: u32 = u32::MAX;

pub(crate) fn error_type() -> Type {
    Type::Meta(ERROR_META)
}

/// Does the type contain the error type (so a diagnostic about it would only repeat an
/// earlier one)?
pub(crate) fn contains_error(t: &Type) -> bool {
    let mut found = false;
    t.walk(&mut |x| found |= *x == Type::Meta(ERROR_META));
    found
}

/// The diagnostics of a unit's errors. An error that mentions the error type (the type of
/// an expression that already failed) only follows from an earlier one: it is left out when
/// another error remains, and otherwise printed with `_` for the unknown type, so the
/// checker's internal type never reaches a message.
fn report(errors: &[CheckError]) -> Vec<Diagnostic> {
    let internal = format!("?{ERROR_META}");
    let all: Vec<Diagnostic> = errors.iter().map(|e| e.to_diagnostic()).collect();
    let (cascades, firsts): (Vec<Diagnostic>, Vec<Diagnostic>) =
        all.into_iter().partition(|d| mentions(d, &internal));
    if !firsts.is_empty() {
        return firsts.into_iter().map(number_unknowns).collect();
    }
    cascades
        .into_iter()
        .map(|mut d| {
            let clean = |s: &mut String| *s = s.replace(&internal, "_");
            clean(&mut d.message);
            clean(&mut d.label);
            d.secondary.iter_mut().for_each(|(_, s)| clean(s));
            d.notes.iter_mut().for_each(clean);
            if let Some(h) = d.help.as_mut() {
                clean(h);
            }
            number_unknowns(d)
        })
        .collect()
}

/// The diagnostic with the inference variables its texts name (`?148`, numbered by the
/// checker's history) renamed `?1`, `?2`, … in order of appearance, one name per variable
/// across the message, labels, notes and help: what it shows is the same whatever inference
/// ran before.
fn number_unknowns(mut d: Diagnostic) -> Diagnostic {
    let mut order: Vec<String> = Vec::new();
    let mut rename = |s: &mut String| {
        if !s.contains('?') {
            return;
        }
        let mut out = String::with_capacity(s.len());
        let mut rest = s.as_str();
        while let Some(at) = rest.find('?') {
            out.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            if digits == 0 {
                out.push('?');
                rest = after;
                continue;
            }
            let number = &after[..digits];
            let position = match order.iter().position(|o| o == number) {
                Some(p) => p,
                None => {
                    order.push(number.to_string());
                    order.len() - 1
                }
            };
            out.push_str(&format!("?{}", position + 1));
            rest = &after[digits..];
        }
        out.push_str(rest);
        *s = out;
    };
    rename(&mut d.message);
    rename(&mut d.label);
    d.secondary.iter_mut().for_each(|(_, s)| rename(s));
    d.notes.iter_mut().for_each(&mut rename);
    if let Some(h) = d.help.as_mut() {
        rename(h);
    }
    d
}

fn mentions(d: &Diagnostic, text: &str) -> bool {
    d.message.contains(text)
        || d.label.contains(text)
        || d.secondary.iter().any(|(_, s)| s.contains(text))
        || d.notes.iter().any(|s| s.contains(text))
        || d.help.as_ref().is_some_and(|h| h.contains(text))
}

impl Checker {
    pub fn new() -> Checker {
        let mut global = Frame::new(None, true);
        global.kind = crate::syntax::ast::FunKind::Proc;
        Checker {
            scopes: std::iter::once(Scope::new(None)).collect(),
            frames: std::iter::once(global).collect(),
            funs: CowVec::new(),
            top: 0,
            scope: 0,
            frame: 0,
            next_fun: 0,
            next_tyvar: 0,
            sizes: Vec::new(),
            next_nominal: 0,
            library_source: false,
            metas: CowVec::new(),
            requirements: Arc::default(),
            schemes: Default::default(),
            prelude_scope: None,
            impl_blocks: std::collections::HashMap::new(),
            jumps: goto::Jumps::default(),
            validate: false,
            field_spans: Arc::default(),
            modules: module::ModuleState::default(),
            unit: UnitContext::default(),
            secret: SecretState::default(),
        }
    }

    /// Turn the IR validator on (or off) for release builds; debug builds always run it.
    pub fn set_validate(&mut self, on: bool) {
        self.validate = on;
    }

    /// Check a whole program (or the prelude) as one new scope nested in everything defined so
    /// far. On error nothing is kept.
    /// Whether the units checked from now on are the library's (the prelude's).
    pub fn set_library_source(&mut self, library: bool) {
        self.library_source = library;
    }

    pub fn check_program(&mut self, stmts: &[Stmt]) -> Result<Unit, Vec<Diagnostic>> {
        self.check_unit(stmts, None, false)
    }

    /// Check one REPL chunk: a new nested scope; an expression chunk sets `Unit::result`.
    pub fn check_chunk(&mut self, chunk: &Chunk) -> Result<Unit, Vec<Diagnostic>> {
        match chunk {
            Chunk::Stmts(stmts) => self.check_unit(stmts, None, false),
            Chunk::Expr(e) => self.check_unit(&[], Some(e), true),
        }
    }

    /// The type of an expression in the current scope, without running anything (`:type`).
    #[cfg(test)]
    pub fn type_of_expr(&mut self, expr: &Expr) -> Result<Type, Vec<Diagnostic>> {
        self.explain_type_of_expr(expr).map(|(t, _)| t)
    }

    /// The type of an expression and, when a type functor produced it, the functor's
    /// application (`promote(int8, int32)`): `:type -v`.
    pub fn explain_type_of_expr(
        &mut self,
        expr: &Expr,
    ) -> Result<(Type, Option<String>), Vec<Diagnostic>> {
        let saved = self.clone();
        let result = self.check_unit(&[], Some(expr), false);
        let derivation = self
            .unit
            .derivations
            .iter()
            .rev()
            .find(|(span, _)| *span == expr.span)
            .map(|(_, d)| d.clone());
        let ty = self.unit.result_type.take();
        *self = saved;
        result.map(|unit| {
            (
                ty.or(unit.result.map(|e| e.ty)).unwrap_or(Type::UNIT),
                derivation,
            )
        })
    }

    /// The type scheme of a name that has no single type: a generic function (printed with
    /// its type parameters) or a library primitive (its declared signature).
    pub fn signature_of(&mut self, name: &str) -> Option<String> {
        let saved = self.clone();
        self.scope = self.top;
        self.frame = 0;
        let sets = self.lookup_fun_sets(name);
        let result = match sets.first().map(|s| s.as_slice()) {
            Some([idx]) => {
                let t = self.fun_type_of(*idx);
                let params: Vec<String> = self.funs[*idx]
                    .own_params
                    .iter()
                    .map(|p| match p.kind {
                        Kind::Type => p.name.to_string(),
                        k => format!("{}:{}", p.name, k.name()),
                    })
                    .collect();
                Some(format!("[{}] {t}", params.join(", ")))
            }
            Some(_) => None,
            None => crate::core::prims::entry_index(name).and_then(|index| {
                let schemes = self.prim_schemes(index).ok()?;
                Some(
                    schemes
                        .iter()
                        .map(|s| s.to_string())
                        .collect::<Vec<_>>()
                        .join("\n"),
                )
            }),
        };
        *self = saved;
        result
    }

    /// Resolve a type expression in the current scope (`:kind`, `:size`, `:layout`, `:iso`).
    pub fn resolve_type(&mut self, ty: &TypeExpr) -> Result<Type, Vec<Diagnostic>> {
        let saved = self.clone();
        self.scope = self.top;
        self.frame = 0;
        let t = self.type_expr(ty);
        let errors = std::mem::take(&mut self.unit.errors);
        *self = saved;
        if errors.is_empty() {
            Ok(t)
        } else {
            Err(report(&errors))
        }
    }

    fn check_unit(
        &mut self,
        stmts: &[Stmt],
        result: Option<&Expr>,
        prints_result: bool,
    ) -> Result<Unit, Vec<Diagnostic>> {
        let saved = self.clone();
        let result_span = result.map(|e| e.span);
        self.unit.derivations.clear();
        let scope = self.new_scope(Some(self.top));
        self.scope = scope;
        self.unit.unit_scope = scope;
        self.secret.reads.clear();
        self.frame = 0;
        self.unit.errors.clear();
        self.unit.out_funs.clear();
        self.unit.out_library_funs.clear();
        self.unit.out_globals.clear();
        let mut body = self.block_in_scope(stmts);
        let result = result.map(|e| {
            let ir = self.expr(e, None);
            self.no_meta_left(&ir.ty, e.span);
            // The REPL prints the value: a pointer does not print.
            if prints_result {
                prims::require_printable(self, &ir, e.span);
            }
            ir
        });
        // A REPL expression of type void is run as a statement.
        let result = match result {
            Some(e) if e.ty.is_void() => {
                body.push(ir::Stmt::Expr(e));
                None
            }
            other => other,
        };
        self.bind_sizes_around(&mut body);
        self.unbound_sizes(&body);
        self.check_pending_functions();
        self.settle_pending_functors();
        self.settle_deferred_vars();
        let mut result = result;
        if self.unit.recursion_metas {
            self.unit.recursion_metas = false;
            self.resolve_recursive_results(&mut body, result.as_mut());
        }
        self.report_open_instances();
        self.report_expected_results();
        if self.unit.errors.is_empty() {
            self.report_early_failures();
        }
        if self.unit.errors.is_empty() {
            self.report_unknown_types(&body, result.as_ref());
        }
        if self.unit.errors.is_empty() {
            if let Some(g) = polyrec::growing_instantiation(&self.unit.out_funs) {
                let via = if g.user == g.callee {
                    "itself".to_string()
                } else {
                    format!("`{}`", g.callee)
                };
                self.error(CheckError::Type {
                    span: g.span,
                    message: format!(
                        "polymorphic recursion at a growing type: `{}` uses {via} at `{}` = `{}`, so its instances grow without end",
                        g.user, g.param, g.arg
                    ),
                    help: Some("a generic function must call itself (directly or through others) at its own type parameters, or at fixed types; pass the growing structure as a value (an array, a list) instead".into()),
                });
            }
        }
        self.unit.result_type = result.as_ref().map(|e| self.zonk(&e.ty));
        self.finish_index();
        if (self.secret.written || self.secret.distributed) && self.unit.errors.is_empty() {
            self.erase_visibility(&mut body, result.as_mut());
        }
        if !self.unit.errors.is_empty() {
            let mut errors = std::mem::take(&mut self.unit.errors);
            errors.sort_by_key(|e| e.span().start);
            errors.dedup();
            *self = saved;
            return Err(report(&errors));
        }
        self.top = scope;
        self.scope = scope;
        self.prelude_scope.get_or_insert(scope);
        let mut functions = std::mem::take(&mut self.unit.out_funs);
        crate::core::selfcall::direct_self_calls(&mut functions);
        crate::core::moves::move_into_reassignments(&mut body);
        for (_, f) in functions.iter_mut() {
            crate::core::moves::move_into_reassignments_of(f);
        }
        let functions = functions
            .into_iter()
            .map(
                |(id, f)| match crate::core::tailcall::loop_self_tail_calls(id, &f) {
                    Some(looped) => (id, Arc::new(looped)),
                    None => (id, f),
                },
            )
            .collect();
        let unit = Unit {
            functions,
            n_globals: self.frames[0].n_slots,
            body,
            result,
            globals: std::mem::take(&mut self.unit.out_globals),
            library: self.library_source,
            library_functions: std::mem::take(&mut self.unit.out_library_funs),
        };
        if cfg!(debug_assertions) || self.validate {
            let problems = crate::core::validate::validate_unit(&unit, &mut TableOf(self));
            if !problems.is_empty() {
                let message = format!(
                    "internal error: the checker produced invalid IR (please report it):\n{}",
                    problems.join("\n")
                );
                if cfg!(debug_assertions) {
                    panic!("{message}");
                }
                *self = saved;
                let span = result_span.unwrap_or_default();
                return Err(vec![CheckError::Type {
                    span,
                    message,
                    help: None,
                }
                .to_diagnostic()]);
            }
        }
        Ok(unit)
    }

    /// E0302 for an application whose result type nothing in the unit fixed.
    fn report_expected_results(&mut self) {
        for (span, form, t) in std::mem::take(&mut self.unit.expected_results) {
            let t = self.zonk(&t);
            if t.has_meta() && !self.unit.errors.iter().any(|e| e.span() == span) {
                self.error(CheckError::CannotInfer {
                    span,
                    message: format!(
                        "cannot infer the type `{form}` gives here (`{}`): declare it, as in `val a : double ^ (3 \\* 4) = {form};`",
                        t.with_unknowns_numbered()
                    ),
                });
            }
        }
    }

    /// Give the variables whose types were inferred after their definition their solved types
    /// (and re-zonk the unit's IR), or report what remains unknown.
    fn settle_deferred_vars(&mut self) {
        for (span, vb, name, t) in std::mem::take(&mut self.unit.deferred_vars) {
            let t = self.zonk(&t);
            if t.has_meta() {
                self.error(CheckError::CannotInfer {
                    span,
                    message: format!(
                        "cannot infer the type of `{name}` (`{}`): nothing in this unit fixes it; declare it, as in `val {name} : TYPE = …;`",
                        t.with_unknowns_numbered()
                    ),
                });
                continue;
            }
            self.set_var_type(&vb, &name, t);
            self.unit.recursion_metas = true;
        }
    }

    /// Apply the `where` functors whose operands inference has found since (repeatedly: one
    /// may define another's operand); those still unknown stay for E0302.
    fn settle_pending_functors(&mut self) {
        loop {
            let pending = std::mem::take(&mut self.unit.pending_functors);
            let before = pending.len();
            for p in pending {
                if prims::apply_pending_functor(self, &p).is_none() {
                    self.unit.pending_functors.push(p);
                }
            }
            if self.unit.pending_functors.len() == before {
                break;
            }
            self.unit.recursion_metas = true;
        }
        self.unit.pending_functors.clear();
    }

    fn new_scope(&mut self, parent: Option<ScopeId>) -> ScopeId {
        self.scopes.push(Scope::new(parent));
        self.scopes.len() - 1
    }

    pub(crate) fn error(&mut self, e: CheckError) {
        let e = self.explain_undefined(e);
        let e = self.explain_secret(e);
        self.unit.errors.push(e);
    }

    pub(crate) fn type_error(&mut self, span: Span, message: impl Into<String>) {
        self.error(CheckError::Type {
            span,
            message: message.into(),
            help: None,
        });
    }
}

/// The primitive table as the IR validator asks it, through a checker (which resolves and
/// caches the schemes).
struct TableOf<'a>(&'a mut Checker);

impl crate::core::validate::Table for TableOf<'_> {
    fn kernel(&mut self, prim: &ir::Prim, args: &[Type], result: &Type) -> Result<(), String> {
        prims::check_kernel(self.0, prim, args, result)
    }

    fn coercion(&mut self, kind: ir::CoerceKind, from: &Type, to: &Type) -> Result<(), String> {
        self.0.check_coercion(kind, from, to)
    }
}
