//! Labels (`name:>`) and `goto name;`, as in Felix.
//!
//! A label names a position in its statement list; a `goto` in that list or in any statement
//! nested in it (loops, conditions, matches, blocks) of the same function jumps there, forward
//! or backward. There is no new IR for it: a statement list with labels becomes a loop over
//! its segments (the statements before the first label, then those after each label) driven
//! by a hidden position variable:
//!
//! ```text
//! pc = 0;
//! repeat
//!   if pc == 0 do SEGMENT0; pc = 1; done
//!   if pc == 1 do SEGMENT1; pc = 2; done
//!   …
//!   SEGMENTk
//!   break;
//! done
//! ```
//!
//! (the last segment is reached only with `pc == k`, so it needs no test, and the definite
//! return analysis sees a body that ends with `return` as one), and `goto` to the label of segment `j` is `pc = j; continue` of that loop, which leaves the
//! loops nested inside it as a labelled `continue` does. Every backend runs it unchanged.
//!
//! A `goto` inside a closure to a label of the function that encloses the closure (Felix's
//! non-local goto) is accepted only in a closure that is never used: the closure must be the
//! initialiser of a `val` or `var` whose name is never read afterwards (Felix programs write it
//! so to show the form). Using it is a static error, because jumping out of a call into its
//! caller's frame has no meaning in Tessera's evaluation.

use crate::check::build::{int_const, mk};
use crate::check::env::VarLoc;
use crate::check::error::CheckError;
use crate::check::Checker;
use crate::core::ir::{self, CmpOp, LabelId, Place, Prim};
use crate::syntax::ast::{self, Stmt, StmtKind};
use crate::syntax::span::Span;
use crate::types::ty::Type;

/// A label of a statement list being checked.
#[derive(Clone, Debug)]
pub struct GotoLabel {
    pub name: String,
    pub span: Span,
    /// The loop that runs the statement list's segments.
    pub driver: LabelId,
    /// The hidden position variable.
    pub pc: Place,
    /// The segment the label starts (1 for the first label).
    pub segment: i64,
}

/// What the checker remembers of non-local gotos.
#[derive(Clone, Debug, Default)]
pub struct Jumps {
    /// Non-local gotos seen in the statement being checked, not yet given to a variable:
    /// (the frame of their label, the label, the goto).
    pending: Vec<(crate::check::env::FrameId, String, Span)>,
    /// Variables whose initialiser is a closure with a non-local goto: (the variable, the
    /// label, the goto).
    closures: Vec<(VarLoc, String, Span)>,
}

impl Checker {
    /// Whether a statement list has labels of its own (and so is checked by
    /// [`Checker::labelled_stmts`]).
    pub(crate) fn has_labels(stmts: &[Stmt]) -> bool {
        stmts.iter().any(|s| matches!(s.node, StmtKind::Label(_)))
    }

    /// A statement list with labels: its segments in a loop (see the module's text).
    pub(crate) fn labelled_stmts(&mut self, stmts: &[Stmt]) -> Vec<ir::Stmt> {
        let frame = self.frame;
        let driver = self.frames[frame].next_label;
        self.frames[frame].next_label += 1;
        let slot = self.frames[frame].alloc();
        let pc = if self.frames[frame].global {
            Place::Global(slot)
        } else {
            Place::Local(slot)
        };
        let outer = self.frames[frame].gotos.len();
        let mut segment = 0;
        for s in stmts {
            let StmtKind::Label(name) = &s.node else {
                continue;
            };
            let previous = self.frames[frame]
                .gotos
                .iter()
                .find(|l| l.name == name.node)
                .map(|l| l.span);
            if let Some(previous) = previous {
                self.error(CheckError::Duplicate {
                    name: name.node.clone(),
                    span: name.span,
                    previous,
                });
                continue;
            }
            segment += 1;
            self.frames[frame].gotos.push(GotoLabel {
                name: name.node.clone(),
                span: name.span,
                driver,
                pc,
                segment,
            });
        }
        let span = stmts.first().map_or(Span::default(), |s| s.span);
        let pc_is = |k: i64| {
            let read = match pc {
                Place::Global(s) => ir::ExprKind::Global(s),
                _ => ir::ExprKind::Local(slot),
            };
            mk(
                ir::ExprKind::Prim(
                    Prim::Compare(CmpOp::Eq),
                    vec![mk(read, Type::INT, span), int_const(k, Type::INT, span)],
                ),
                Type::BOOL,
                span,
            )
        };
        let set_pc = |k: i64| ir::Stmt::Assign(pc, int_const(k, Type::INT, span));
        let mut segments: Vec<Vec<ir::Stmt>> = vec![Vec::new()];
        for s in stmts {
            if let StmtKind::Label(_) = s.node {
                segments.push(Vec::new());
            } else {
                let current = segments.last_mut().expect("one segment at least");
                self.stmt(s, current);
            }
        }
        self.frames[frame].gotos.truncate(outer);
        let last = segments.len() - 1;
        let mut body = Vec::new();
        for (k, mut seg) in segments.into_iter().enumerate() {
            self.bind_sizes_after_assignments(&mut seg);
            if k < last {
                seg.push(set_pc(k as i64 + 1));
                body.push(ir::Stmt::If(pc_is(k as i64), seg, Vec::new()));
            } else {
                // Every way here has run the segment before it or jumped to this one.
                body.extend(seg);
            }
        }
        body.push(ir::Stmt::Break(driver));
        vec![
            set_pc(0),
            ir::Stmt::Loop {
                label: driver,
                body,
            },
        ]
    }

    /// `goto name;`: to a label of this function, or (in a closure) of an enclosing one.
    pub(crate) fn goto_stmt(&mut self, name: &ast::SName, span: Span, out: &mut Vec<ir::Stmt>) {
        let mut frame = self.frame;
        loop {
            let found = self.frames[frame]
                .gotos
                .iter()
                .rev()
                .find(|l| l.name == name.node)
                .cloned();
            if let Some(l) = found {
                if frame == self.frame {
                    out.push(ir::Stmt::Assign(
                        l.pc,
                        int_const(l.segment, Type::INT, span),
                    ));
                    out.push(ir::Stmt::Continue(l.driver));
                } else {
                    self.jumps.pending.push((frame, name.node.clone(), span));
                }
                return;
            }
            match self.frames[frame].parent {
                Some(p) if !self.frames[frame].global => frame = p,
                _ => break,
            }
        }
        self.error(CheckError::UndefinedName {
            name: name.node.clone(),
            span: name.span,
            what: "label",
            hint: Some(
                "a goto jumps to a label (`name:>`) of its own statement list or of one that encloses it, in the same function".into(),
            ),
        });
    }

    /// The number of pending non-local gotos, before a variable's initialiser is checked.
    pub(crate) fn pending_jumps(&self) -> usize {
        self.jumps.pending.len()
    }

    /// After the initialiser `init` of the variable declared by `decl`: a closure whose
    /// non-local gotos target this frame makes the variable one that must not be used.
    pub(crate) fn claim_jumps(&mut self, mark: usize, init: &ast::Expr, decl: &Stmt) {
        if !matches!(init.node, ast::ExprKind::Lambda(_)) {
            return;
        }
        let Some(loc) = self.hoisted_var(decl).map(|v| v.loc) else {
            return;
        };
        let frame = self.frame;
        let mut k = mark;
        while k < self.jumps.pending.len() {
            if self.jumps.pending[k].0 == frame {
                let (_, label, span) = self.jumps.pending.remove(k);
                self.jumps.closures.push((loc, label, span));
            } else {
                k += 1;
            }
        }
    }

    /// At the end of a statement of the frame being checked: a non-local goto to one of its
    /// labels that no variable took is in a closure that may be called.
    pub(crate) fn report_jumps(&mut self, mark: usize) {
        let frame = self.frame;
        let mut k = mark;
        while k < self.jumps.pending.len() {
            if self.jumps.pending[k].0 == frame {
                let (_, label, span) = self.jumps.pending.remove(k);
                self.error(CheckError::Type {
                    span,
                    message: format!(
                        "this `goto {label}` leaves a closure for a label of the enclosing function"
                    ),
                    help: Some(
                        "a closure with such a goto can only be bound to a `val` that is never used; move the label into the closure or return a value and branch on it".into(),
                    ),
                });
            } else {
                k += 1;
            }
        }
    }

    /// A use of a variable bound to a closure with a non-local goto.
    pub(crate) fn check_jumping_use(&mut self, loc: VarLoc, name: &str, span: Span) {
        let Some((_, label, goto)) = self.jumps.closures.iter().find(|c| c.0 == loc).cloned()
        else {
            return;
        };
        self.error(CheckError::Noted {
            error: Box::new(CheckError::Type {
                span,
                message: format!(
                    "`{name}` is a closure that jumps to the label `{label}` of its enclosing function, so it cannot be used"
                ),
                help: Some(
                    "Tessera cannot leave a call for its caller's label; return a value and branch on it".into(),
                ),
            }),
            at: goto,
            label: format!("the `goto {label}` is here"),
        });
    }
}
