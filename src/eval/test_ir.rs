//! Builders for hand-written IR in tests, so each test reads like the program it encodes.

use std::sync::Arc;

use crate::core::ir::{
    ArithOp, CmpOp, Const, Expr, ExprKind, FunId, Function, Pattern, PatternKind, Place, Prim,
    Stmt, Unit,
};
use crate::diag::Diagnostic;
use crate::syntax::ast::FunKind;
use crate::syntax::span::Span;
use crate::types::ty::IntTy;
use crate::types::Type;

use super::value::Value;
use super::Machine;

/// A span that identifies a node in a test by its start offset.
pub fn at(start: usize) -> Span {
    Span::new(start, start + 1)
}

pub fn expr(kind: ExprKind, ty: Type) -> Expr {
    Expr {
        kind,
        ty,
        span: Span::default(),
    }
}

/// The same expression with the given span.
pub fn spanned(mut e: Expr, span: Span) -> Expr {
    e.span = span;
    e
}

pub fn int(i: i64) -> Expr {
    expr(ExprKind::Const(Const::Int(i)), Type::INT)
}

pub fn code(c: i64, ty: Type) -> Expr {
    expr(ExprKind::Const(Const::Int(c)), ty)
}

pub fn string(s: &str) -> Expr {
    expr(
        ExprKind::Const(Const::Str(Arc::from(s.as_bytes()))),
        Type::String,
    )
}

pub fn local(slot: u32, ty: Type) -> Expr {
    expr(ExprKind::Local(slot), ty)
}

pub fn global(slot: u32, ty: Type) -> Expr {
    expr(ExprKind::Global(slot), ty)
}

pub fn prim(p: Prim, args: Vec<Expr>, ty: Type) -> Expr {
    expr(ExprKind::Prim(p, args), ty)
}

pub fn int_op(op: ArithOp, a: Expr, b: Expr) -> Expr {
    prim(Prim::IntArith(op, IntTy::Int), vec![a, b], Type::INT)
}

pub fn compare(op: CmpOp, a: Expr, b: Expr) -> Expr {
    prim(Prim::Compare(op), vec![a, b], Type::BOOL)
}

pub fn if_expr(c: Expr, a: Expr, b: Expr) -> Expr {
    let ty = a.ty.clone();
    expr(ExprKind::If(Box::new(c), Box::new(a), Box::new(b)), ty)
}

pub fn make_fun(fun: FunId, ty: Type) -> Expr {
    expr(
        ExprKind::MakeFun {
            fun,
            type_args: vec![],
        },
        ty,
    )
}

pub fn call(func: Expr, args: Vec<Expr>, ty: Type) -> Expr {
    expr(
        ExprKind::Call {
            func: Box::new(func),
            args,
        },
        ty,
    )
}

pub fn array(elements: Vec<Expr>, ty: Type) -> Expr {
    expr(ExprKind::Array(elements), ty)
}

pub fn bind(place: Place, ty: Type) -> Pattern {
    Pattern {
        kind: PatternKind::Bind(place),
        ty,
        span: Span::default(),
    }
}

/// A non-generic `fun` with the given parameter patterns, result type, frame size and body.
pub fn function(
    name: &str,
    params: Vec<Pattern>,
    ret: Type,
    n_slots: u32,
    body: Vec<Stmt>,
) -> Function {
    Function {
        name: name.to_string(),
        kind: FunKind::Fun,
        span: Span::default(),
        type_params: vec![],
        size_params: 0,
        params,
        ret,
        n_slots,
        cell_slots: vec![],
        captures: vec![],
        body,
        pure_: true,
    }
}

pub fn ret(e: Expr) -> Stmt {
    Stmt::Return(Some(e))
}

pub fn println(e: Expr) -> Stmt {
    Stmt::Expr(prim(Prim::Println, vec![e], Type::UNIT))
}

/// A unit with functions numbered from 0, `n_globals` globals, a body and an optional result.
pub fn unit(
    functions: Vec<Function>,
    n_globals: u32,
    body: Vec<Stmt>,
    result: Option<Expr>,
) -> Unit {
    Unit {
        functions: functions
            .into_iter()
            .enumerate()
            .map(|(i, f)| (i as FunId, Arc::new(f)))
            .collect(),
        n_globals,
        body,
        result,
        globals: Vec::new(),
        library: false,
        library_functions: Vec::new(),
    }
}

/// Run a unit on a machine, returning the outcome and the output.
pub fn run_on(machine: &mut Machine, unit: &Unit) -> (Result<Option<Value>, Diagnostic>, String) {
    let mut out = Vec::new();
    let result = machine.run(unit, &mut out);
    (result, String::from_utf8(out).expect("utf-8 output"))
}

/// Run a unit on a fresh machine and return its result value (which must exist).
pub fn eval(unit: &Unit) -> Value {
    let (result, _) = run_on(&mut Machine::new(), unit);
    result
        .expect("the unit runs without error")
        .expect("the unit has a result")
}

/// Run a unit on a fresh machine and return the runtime error it must raise.
pub fn eval_error(unit: &Unit) -> Diagnostic {
    let (result, _) = run_on(&mut Machine::new(), unit);
    result.expect_err("the unit raises a runtime error")
}

/// Just an expression as a unit.
pub fn expr_unit(e: Expr) -> Unit {
    unit(vec![], 0, vec![], Some(e))
}
