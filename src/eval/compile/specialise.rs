//! Code over run-time sizes (`Stmt::Specialise`).
//!
//! A block whose types mention run-time sizes (`val n = …; var a : double ^ n;`) is kept as IR
//! until it runs. Each time it starts, the sizes are read; the block is compiled for those
//! values, with every size variable replaced by the unitsum of its value, so it runs as the
//! same code a program with static sizes gets, native code included. The compiled code is kept
//! per distinct sizes (a few of them: a block entered with ever new sizes is recompiled).

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use crate::core::ir::{Expr, Place, Stmt};
use crate::core::subst::substitute_sizes;
use crate::core::visit::each_in_stmts;
use crate::syntax::span::Span;
use crate::types::ty::{TyVar, Type};

use super::super::code::{IntCode, StmtCode};
use super::super::error::{runtime_error, INTERNAL, SHAPE_MISMATCH};
use super::super::native::UnitCode;
use super::super::{Ctrl, Frame};
use super::Compiler;

/// How many specialisations of one block are kept.
const KEPT: usize = 16;

/// A block compiled for one choice of its sizes.
enum Specialised {
    Closure(StmtCode),
    Native(UnitCode),
}

impl Specialised {
    fn run(&self, frame: &mut Frame<'_, '_>) -> Result<(), Ctrl> {
        match self {
            Specialised::Closure(code) => code(frame),
            Specialised::Native(code) => code.run(frame),
        }
    }
}

/// What compiling the block later needs of the compiler's state now.
struct Context {
    vars: Vec<TyVar>,
    body: Vec<Stmt>,
    /// Compiled inside a function (not at a unit's top level).
    in_function: bool,
    /// The frame's size.
    slots: usize,
    /// Globals certainly assigned before the block starts.
    defined: HashSet<u32>,
    /// The block may `break` or `continue` out of itself (so it cannot be native code, which
    /// has nowhere to go).
    escapes: bool,
}

impl Compiler<'_> {
    pub(super) fn specialise(
        &mut self,
        sizes: &[(TyVar, Expr)],
        body: &[Stmt],
        span: Span,
    ) -> StmtCode {
        let reads: Vec<(IntCode, Span)> = sizes
            .iter()
            .map(|(_, e)| (self.int_code(e), e.span))
            .collect();
        // The block's slots are this frame's: it must be large enough for them now.
        each_in_stmts(body, &mut |_| {}, &mut |place| {
            if let Place::Local(s) | Place::LocalCell(s) = place {
                self.note_slot(s);
            }
        });
        let context = Arc::new(Context {
            vars: sizes.iter().map(|(v, _)| v.clone()).collect(),
            body: body.to_vec(),
            in_function: self.in_function > 0,
            slots: self.slots_used,
            defined: self.defined.clone(),
            // A `return` is fine: native code leaves with `Ctrl::Return`, as closures do.
            escapes: crate::core::visit::jumps_out(body),
        });
        type Cache = Vec<(Vec<u64>, Arc<Specialised>)>;
        let cache: Mutex<Cache> = Mutex::new(Vec::new());
        Box::new(move |frame| {
            let mut key = Vec::with_capacity(reads.len());
            for ((read, at), var) in reads.iter().zip(&context.vars) {
                let value = read(frame)?;
                let Ok(size) = u64::try_from(value) else {
                    return Err(Ctrl::Error(Box::new(
                        crate::diag::Diagnostic::new(
                            crate::diag::Stage::Runtime,
                            SHAPE_MISMATCH,
                            format!(
                                "the size `{}` is {value}: a size cannot be negative",
                                var.name
                            ),
                            *at,
                        )
                        .with_label("this size is negative"),
                    )));
                };
                key.push(size);
            }
            let found = {
                let cache = cache.lock().unwrap_or_else(|e| e.into_inner());
                cache
                    .iter()
                    .find(|(k, _)| *k == key)
                    .map(|(_, code)| code.clone())
            };
            let code = match found {
                Some(code) => code,
                None => {
                    let code = Arc::new(compile_for(&context, &key, frame, span)?);
                    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
                    if cache.len() >= KEPT {
                        cache.remove(0);
                    }
                    cache.push((key, code.clone()));
                    code
                }
            };
            code.run(frame)
        })
    }
}

/// The block of `context` compiled with its sizes set to `sizes`.
fn compile_for(
    context: &Context,
    sizes: &[u64],
    frame: &mut Frame<'_, '_>,
    span: Span,
) -> Result<Specialised, Ctrl> {
    let args: Vec<Type> = sizes.iter().map(|n| Type::Unitsum(*n)).collect();
    let mut program = frame.rt.program.borrow_mut();
    let Some(program) = program.as_deref_mut() else {
        return Err(runtime_error(
            INTERNAL,
            "code over run-time sizes cannot be compiled here",
            span,
        ));
    };
    let body = substitute_sizes(&context.body, &context.vars, &args, &|fun| {
        program.inlined(fun)
    });
    let backend = program.native.clone();
    let mut compiler = Compiler::new(program, context.slots);
    compiler.defined = context.defined.clone();
    compiler.in_function = usize::from(context.in_function);
    // Natively when it can be; a `return` in it (of the function, or of an inlined body
    // around it) leaves native code as `Ctrl::Return`, which the code around it takes as it
    // takes the closures'. Not in a closure: native code's fallback pieces read no captures.
    if let (Some(backend), false, true) = (&backend, context.escapes, frame.captures.is_empty()) {
        if let Some(code) = super::super::native::compile_block(&mut compiler, backend, &body) {
            if compiler.top_level_slots() <= frame.slots.len() {
                return Ok(Specialised::Native(code));
            }
        }
    }
    if context.in_function {
        return Ok(Specialised::Closure(compiler.block(&body)));
    }
    let code = compiler.top_level_block(&body);
    if compiler.top_level_slots() > frame.slots.len() {
        return Err(runtime_error(
            INTERNAL,
            "code over run-time sizes needs more slots than its frame has",
            span,
        ));
    }
    Ok(Specialised::Closure(code))
}
