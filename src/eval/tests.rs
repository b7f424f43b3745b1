//! Evaluator tests over hand-built IR units.

use std::sync::Arc;

use crate::core::ir::{
    ArithOp, Capture, CmpOp, CoerceKind, ExprKind, IndexMode, PathStep, Place, Prim, Stmt,
};
use crate::diag::Stage;
use crate::types::ty::{IntTy, Kind, TyVar};
use crate::types::Type;

use super::test_ir::*;
use super::value::Value;
use super::Machine;

fn int_array(values: &[i64]) -> crate::core::ir::Expr {
    let ty = Type::array(Type::INT, Type::Unitsum(values.len() as u64));
    array(values.iter().map(|v| int(*v)).collect(), ty)
}

fn ints_of(value: &Value) -> Vec<i64> {
    match value {
        Value::Array(view) => (0..view.len).map(|k| view.leaf(k).as_int()).collect(),
        other => panic!("expected an array, found {other:?}"),
    }
}

#[test]
fn arithmetic_follows_c_and_checks_overflow() {
    let e = int_op(ArithOp::Add, int(2), int_op(ArithOp::Mul, int(3), int(4)));
    assert_eq!(eval(&expr_unit(e)).as_int(), 14);
    let e = int_op(ArithOp::Div, int(-7), int(2));
    assert_eq!(eval(&expr_unit(e)).as_int(), -3);

    let overflow = spanned(int_op(ArithOp::Add, int(2147483647), int(1)), at(10));
    let error = eval_error(&expr_unit(overflow));
    assert_eq!(error.stage, Stage::Runtime);
    assert_eq!(error.code, "R0003");
    assert_eq!(error.message, "int overflow: 2147483647 + 1");
    assert_eq!(error.span, at(10));

    let division = int_op(ArithOp::Mod, int(1), int(0));
    assert_eq!(eval_error(&expr_unit(division)).code, "R0004");
}

#[test]
fn output_before_an_error_is_kept() {
    let body = vec![
        println(string("before")),
        Stmt::Expr(int_op(ArithOp::Div, int(1), int(0))),
        println(string("after")),
    ];
    let (result, out) = run_on(&mut Machine::new(), &unit(vec![], 0, body, None));
    assert_eq!(result.unwrap_err().code, "R0004");
    assert_eq!(out, "before\n");
}

fn fib_function() -> crate::core::ir::Function {
    let fib_ty = Type::fun(Type::INT, Type::INT);
    let n = || local(0, Type::INT);
    let recurse = |k: i64| {
        call(
            make_fun(0, fib_ty.clone()),
            vec![int_op(ArithOp::Sub, n(), int(k))],
            Type::INT,
        )
    };
    function(
        "fib",
        vec![bind(Place::Local(0), Type::INT)],
        Type::INT,
        1,
        vec![ret(if_expr(
            compare(CmpOp::Lt, n(), int(2)),
            n(),
            int_op(ArithOp::Add, recurse(1), recurse(2)),
        ))],
    )
}

#[test]
fn recursive_function() {
    let fib_ty = Type::fun(Type::INT, Type::INT);
    let result = call(make_fun(0, fib_ty), vec![int(20)], Type::INT);
    assert_eq!(
        eval(&unit(vec![fib_function()], 0, vec![], Some(result))).as_int(),
        6765
    );
}

#[test]
fn closures_and_partial_application() {
    // fun add3 (x:int) (y:int) (z:int) => x + 100 * y + 10000 * z
    let add3_ty = Type::fun(
        Type::INT,
        Type::fun(Type::INT, Type::fun(Type::INT, Type::INT)),
    );
    let body = int_op(
        ArithOp::Add,
        local(0, Type::INT),
        int_op(
            ArithOp::Add,
            int_op(ArithOp::Mul, int(100), local(1, Type::INT)),
            int_op(ArithOp::Mul, int(10000), local(2, Type::INT)),
        ),
    );
    let add3 = function(
        "add3",
        (0..3).map(|s| bind(Place::Local(s), Type::INT)).collect(),
        Type::INT,
        3,
        vec![ret(body)],
    );
    let partial_ty = Type::fun(Type::INT, Type::fun(Type::INT, Type::INT));
    // val add1 = add3 1; add1 2 3
    let stmts = vec![Stmt::Assign(
        Place::Global(0),
        call(
            make_fun(0, add3_ty.clone()),
            vec![int(1)],
            partial_ty.clone(),
        ),
    )];
    let result = call(
        global(0, partial_ty.clone()),
        vec![int(2), int(3)],
        Type::INT,
    );
    let mut machine = Machine::new();
    let (value, _) = run_on(&mut machine, &unit(vec![add3], 1, stmts, Some(result)));
    assert_eq!(value.unwrap().unwrap().as_int(), 30201);

    // The partial application persists in the machine: a later unit applies it one group at
    // a time, and the direct call with too many groups applies the result to the rest.
    let step = call(
        global(0, partial_ty.clone()),
        vec![int(5)],
        Type::fun(Type::INT, Type::INT),
    );
    let later = call(step, vec![int(7)], Type::INT);
    let (value, _) = run_on(&mut machine, &unit(vec![], 1, vec![], Some(later)));
    assert_eq!(value.unwrap().unwrap().as_int(), 70501);
}

#[test]
fn captured_cells_are_shared() {
    // fun make () = { var c = 10; proc bump () { c = c + 1; } bump(); bump(); return c; }
    let bump_ty = Type::fun(Type::UNIT, Type::UNIT);
    let mut bump = function(
        "bump",
        vec![crate::core::ir::Pattern {
            kind: crate::core::ir::PatternKind::Wildcard,
            ty: Type::UNIT,
            span: Default::default(),
        }],
        Type::UNIT,
        0,
        vec![Stmt::Assign(
            Place::CaptureCell(0),
            int_op(
                ArithOp::Add,
                expr(ExprKind::CaptureCell(0), Type::INT),
                int(1),
            ),
        )],
    );
    bump.captures = vec![Capture::Cell(0)];
    let unit_value = || expr(ExprKind::Tuple(vec![]), Type::UNIT);
    let mut make = function(
        "make",
        vec![crate::core::ir::Pattern {
            kind: crate::core::ir::PatternKind::Wildcard,
            ty: Type::UNIT,
            span: Default::default(),
        }],
        Type::INT,
        2,
        vec![
            Stmt::Assign(Place::LocalCell(0), int(10)),
            Stmt::Assign(Place::Local(1), make_fun(1, bump_ty.clone())),
            Stmt::Expr(call(
                local(1, bump_ty.clone()),
                vec![unit_value()],
                Type::UNIT,
            )),
            Stmt::Expr(call(
                make_fun(1, bump_ty.clone()),
                vec![unit_value()],
                Type::UNIT,
            )),
            ret(expr(ExprKind::LocalCell(0), Type::INT)),
        ],
    );
    make.cell_slots = vec![0];
    let result = call(
        make_fun(0, Type::fun(Type::UNIT, Type::INT)),
        vec![unit_value()],
        Type::INT,
    );
    assert_eq!(
        eval(&unit(vec![make, bump], 0, vec![], Some(result))).as_int(),
        12
    );
}

#[test]
fn arrays_index_and_check_bounds() {
    let a = int_array(&[10, 20, 30]);
    let ty3 = a.ty.clone();
    let element = expr(
        ExprKind::Index {
            array: Box::new(a.clone()),
            index: Box::new(int(2)),
            mode: IndexMode::Linear,
        },
        Type::INT,
    );
    assert_eq!(eval(&expr_unit(element)).as_int(), 30);

    let outside = expr(
        ExprKind::Index {
            array: Box::new(a),
            index: Box::new(spanned(int(7), at(4))),
            mode: IndexMode::Linear,
        },
        Type::INT,
    );
    let error = eval_error(&expr_unit(outside));
    assert_eq!(error.code, "R0001");
    assert_eq!(error.span, at(4));
    assert_eq!(
        error.message,
        format!("index 7 out of range for {ty3} (3 elements)")
    );
}

#[test]
fn stores_copy_on_write() {
    let ty = Type::array(Type::INT, Type::Unitsum(3));
    let matrix_ty = Type::array(Type::array(Type::INT, Type::Unitsum(2)), Type::Unitsum(2));
    let body = vec![
        Stmt::Assign(Place::Global(0), int_array(&[1, 2, 3])),
        Stmt::Assign(Place::Global(1), global(0, ty.clone())),
        Stmt::Store {
            place: Place::Global(0),
            root_ty: ty.clone(),
            path: vec![PathStep::Index(int(1), IndexMode::Linear)],
            value: int(9),
        },
        Stmt::Assign(Place::Global(2), expr(ExprKind::Zero, matrix_ty.clone())),
        Stmt::Store {
            place: Place::Global(2),
            root_ty: matrix_ty.clone(),
            path: vec![
                PathStep::Index(int(1), IndexMode::Linear),
                PathStep::Index(int(0), IndexMode::Linear),
            ],
            value: int(5),
        },
    ];
    let result = expr(
        ExprKind::Tuple(vec![
            global(0, ty.clone()),
            global(1, ty.clone()),
            global(2, matrix_ty.clone()),
        ]),
        Type::tuple(vec![ty.clone(), ty.clone(), matrix_ty]),
    );
    let Value::Tuple(parts) = eval(&unit(vec![], 3, body, Some(result))) else {
        panic!("expected a tuple");
    };
    assert_eq!(ints_of(&parts[0]), vec![1, 9, 3]);
    assert_eq!(ints_of(&parts[1]), vec![1, 2, 3], "the copy is unchanged");
    assert_eq!(ints_of(&parts[2]), vec![0, 0, 5, 0]);

    let bad_store = vec![
        Stmt::Assign(Place::Global(0), int_array(&[1, 2, 3])),
        Stmt::Store {
            place: Place::Global(0),
            root_ty: ty.clone(),
            path: vec![PathStep::Index(int(3), IndexMode::Linear)],
            value: int(9),
        },
    ];
    let mut machine = Machine::new();
    let (result, _) = run_on(&mut machine, &unit(vec![], 1, bad_store, None));
    assert_eq!(result.unwrap_err().code, "R0001");
    // The variable keeps its value after the failed store.
    let (value, _) = run_on(&mut machine, &unit(vec![], 1, vec![], Some(global(0, ty))));
    assert_eq!(ints_of(&value.unwrap().unwrap()), vec![1, 2, 3]);
}

#[test]
fn compact_tuples_projections_and_injections() {
    let product = Type::cproduct(vec![Type::Unitsum(3), Type::Unitsum(4), Type::Unitsum(5)]);
    let tuple = expr(
        ExprKind::CTuple(vec![
            code(2, Type::Unitsum(3)),
            code(1, Type::Unitsum(4)),
            code(3, Type::Unitsum(5)),
        ]),
        product.clone(),
    );
    assert_eq!(eval(&expr_unit(tuple.clone())).as_int(), 48);
    let field = expr(ExprKind::CField(Box::new(tuple), 1), Type::Unitsum(4));
    assert_eq!(eval(&expr_unit(field)).as_int(), 1);

    let sum = Type::csum(vec![Type::Unitsum(3), Type::BOOL]);
    let injected = expr(
        ExprKind::CInject {
            tag: 1,
            arg: Box::new(code(1, Type::BOOL)),
        },
        sum.clone(),
    );
    assert_eq!(eval(&expr_unit(injected.clone())).as_int(), 4);
    let caseno = prim(Prim::Caseno, vec![injected], Type::INT);
    assert_eq!(eval(&expr_unit(caseno)).as_int(), 1);
}

#[test]
fn decode_range_errors() {
    let target = Type::Unitsum(3);
    let decode = |n: i64| {
        expr(
            ExprKind::Coerce(CoerceKind::DecodeInt, Box::new(int(n))),
            target.clone(),
        )
    };
    assert_eq!(eval(&expr_unit(decode(2))).as_int(), 2);
    let error = eval_error(&expr_unit(decode(5)));
    assert_eq!(error.code, "R0002");
    assert_eq!(
        error.message,
        format!("5 is not a code of {target} (0 .. 2)")
    );
    assert_eq!(eval_error(&expr_unit(decode(-1))).code, "R0002");
}

#[test]
fn reshape_between_arrays_shares_the_buffer() {
    let flat = Type::array(Type::INT, Type::Unitsum(6));
    let matrix = Type::array(
        Type::INT,
        Type::cproduct(vec![Type::Unitsum(3), Type::Unitsum(2)]),
    );
    let body = vec![Stmt::Assign(
        Place::Global(0),
        int_array(&[1, 2, 3, 4, 5, 6]),
    )];
    let reshaped = expr(
        ExprKind::Coerce(CoerceKind::Reshape, Box::new(global(0, flat.clone()))),
        matrix.clone(),
    );
    let result = expr(
        ExprKind::Tuple(vec![global(0, flat.clone()), reshaped]),
        Type::tuple(vec![flat, matrix]),
    );
    let Value::Tuple(parts) = eval(&unit(vec![], 1, body, Some(result))) else {
        panic!("expected a tuple");
    };
    match (&parts[0], &parts[1]) {
        (Value::Array(a), Value::Array(b)) => assert!(Arc::ptr_eq(&a.buf, &b.buf)),
        other => panic!("expected two arrays, found {other:?}"),
    }
}

#[test]
fn reshape_from_a_tuple_copies_the_leaves() {
    // ((1, 2, 3), (4, 5)) :>> int ^ (3 \+ 2)
    let source_ty = Type::tuple(vec![
        Type::array(Type::INT, Type::Unitsum(3)),
        Type::array(Type::INT, Type::Unitsum(2)),
    ]);
    let source = expr(
        ExprKind::Tuple(vec![int_array(&[1, 2, 3]), int_array(&[4, 5])]),
        source_ty,
    );
    let target = Type::array(
        Type::INT,
        Type::csum(vec![Type::Unitsum(3), Type::Unitsum(2)]),
    );
    let reshaped = expr(
        ExprKind::Coerce(CoerceKind::Reshape, Box::new(source)),
        target,
    );
    assert_eq!(ints_of(&eval(&expr_unit(reshaped))), vec![1, 2, 3, 4, 5]);
}

#[test]
fn for_codes_over_a_type_bigger_than_two_to_the_64() {
    // var n = 0; lbl: for i in ..[2 \^ 100] do n = n + 1; if n == 5 break lbl; done
    let big = Type::carray(Type::BOOL, Type::Unitsum(100));
    let count = || global(0, Type::INT);
    let body = vec![
        Stmt::Assign(Place::Global(0), int(0)),
        Stmt::ForCodes {
            label: 1,
            var: Place::Global(1),
            ty: big.clone(),
            body: vec![
                Stmt::Assign(Place::Global(0), int_op(ArithOp::Add, count(), int(1))),
                Stmt::If(
                    compare(CmpOp::Eq, count(), int(5)),
                    vec![Stmt::Break(1)],
                    vec![],
                ),
            ],
        },
    ];
    let result = expr(
        ExprKind::Tuple(vec![count(), global(1, big.clone())]),
        Type::tuple(vec![Type::INT, big]),
    );
    let Value::Tuple(parts) = eval(&unit(vec![], 2, body, Some(result))) else {
        panic!("expected a tuple");
    };
    assert_eq!(parts[0].as_int(), 5);
    match &parts[1] {
        Value::Big(code) => assert_eq!(**code, num_bigint::BigUint::from(4u32)),
        other => panic!("expected a big code, found {other:?}"),
    }
}

#[test]
fn deep_recursion_is_reported_and_the_machine_survives() {
    // fun down (n:int) : int => if n == 0 then 0 else 1 + down (n - 1)
    let down_ty = Type::fun(Type::INT, Type::INT);
    let n = || local(0, Type::INT);
    let down = function(
        "down",
        vec![bind(Place::Local(0), Type::INT)],
        Type::INT,
        1,
        vec![ret(if_expr(
            compare(CmpOp::Eq, n(), int(0)),
            int(0),
            int_op(
                ArithOp::Add,
                int(1),
                call(
                    make_fun(0, down_ty.clone()),
                    vec![int_op(ArithOp::Sub, n(), int(1))],
                    Type::INT,
                ),
            ),
        ))],
    );
    let mut machine = Machine::new();
    let deep = call(
        make_fun(0, down_ty.clone()),
        vec![int(1_000_000)],
        Type::INT,
    );
    let (result, _) = run_on(&mut machine, &unit(vec![down], 0, vec![], Some(deep)));
    assert_eq!(result.unwrap_err().code, "R0008");

    let fine = call(make_fun(0, down_ty.clone()), vec![int(50_000)], Type::INT);
    let (result, _) = run_on(&mut machine, &unit(vec![], 0, vec![], Some(fine)));
    assert_eq!(result.unwrap().unwrap().as_int(), 50_000);

    // Just under the limit: the stack grows by segments (checked against a floor per
    // segment), and the count of nested calls is exact.
    let deepest = call(
        make_fun(0, down_ty.clone()),
        vec![int(i64::from(super::MAX_CALL_DEPTH) - 1)],
        Type::INT,
    );
    let (result, _) = run_on(&mut machine, &unit(vec![], 0, vec![], Some(deepest)));
    assert_eq!(
        result.unwrap().unwrap().as_int(),
        i64::from(super::MAX_CALL_DEPTH) - 1
    );
    let one_more = call(
        make_fun(0, down_ty),
        vec![int(i64::from(super::MAX_CALL_DEPTH))],
        Type::INT,
    );
    let (result, _) = run_on(&mut machine, &unit(vec![], 0, vec![], Some(one_more)));
    assert_eq!(result.unwrap_err().code, "R0008");
}

#[test]
fn generic_functions_are_instantiated() {
    // fun count[N:COMPACTLINEAR] () => Typing::memcount[N]
    let n = TyVar {
        id: 1,
        name: Arc::from("N"),
        kind: Kind::CompactLinear,
    };
    let mut count = function(
        "count",
        vec![crate::core::ir::Pattern {
            kind: crate::core::ir::PatternKind::Wildcard,
            ty: Type::UNIT,
            span: Default::default(),
        }],
        Type::SIZE,
        0,
        vec![ret(expr(
            ExprKind::TypeSize(Type::Var(n.clone())),
            Type::SIZE,
        ))],
    );
    count.type_params = vec![n];
    let instance = |ty: Type| {
        call(
            expr(
                ExprKind::MakeFun {
                    fun: 0,
                    type_args: vec![ty],
                },
                Type::fun(Type::UNIT, Type::SIZE),
            ),
            vec![expr(ExprKind::Tuple(vec![]), Type::UNIT)],
            Type::SIZE,
        )
    };
    let product = Type::cproduct(vec![Type::Unitsum(3), Type::Unitsum(4)]);
    let result = int_op(ArithOp::Add, instance(product), instance(Type::Unitsum(5)));
    assert_eq!(
        eval(&unit(vec![count], 0, vec![], Some(result))).as_int(),
        17
    );
}

#[test]
fn map_fold_and_sum() {
    // map (fun (x:int) => x * x) (1, 2, 3), then fold_left (+) 0 and \sum
    let square = function(
        "square",
        vec![bind(Place::Local(0), Type::INT)],
        Type::INT,
        1,
        vec![ret(int_op(
            ArithOp::Mul,
            local(0, Type::INT),
            local(0, Type::INT),
        ))],
    );
    let plus = function(
        "plus",
        vec![
            bind(Place::Local(0), Type::INT),
            bind(Place::Local(1), Type::INT),
        ],
        Type::INT,
        2,
        vec![ret(int_op(
            ArithOp::Sub,
            local(0, Type::INT),
            local(1, Type::INT),
        ))],
    );
    let ty = Type::array(Type::INT, Type::Unitsum(3));
    let mapped = prim(
        Prim::Map,
        vec![
            make_fun(0, Type::fun(Type::INT, Type::INT)),
            int_array(&[1, 2, 3]),
        ],
        ty.clone(),
    );
    let functions = || vec![square.clone(), plus.clone()];
    let mapped_unit = unit(functions(), 0, vec![], Some(mapped.clone()));
    assert_eq!(ints_of(&eval(&mapped_unit)), vec![1, 4, 9]);
    let plus_ty = Type::fun(Type::INT, Type::fun(Type::INT, Type::INT));
    let folded = prim(
        Prim::FoldLeft,
        vec![make_fun(1, plus_ty), int(100), mapped.clone()],
        Type::INT,
    );
    assert_eq!(
        eval(&unit(functions(), 0, vec![], Some(folded))).as_int(),
        86
    );
    let summed = prim(Prim::Sum, vec![mapped], Type::INT);
    assert_eq!(
        eval(&unit(functions(), 0, vec![], Some(summed))).as_int(),
        14
    );
    let overflow = prim(Prim::Prod, vec![int_array(&[65536, 65536])], Type::INT);
    assert_eq!(eval_error(&expr_unit(overflow)).code, "R0003");
}

#[test]
fn transpose_both_forms() {
    let rows = Type::array(Type::array(Type::INT, Type::Unitsum(3)), Type::Unitsum(2));
    let source = array(vec![int_array(&[1, 2, 3]), int_array(&[4, 5, 6])], rows);
    let transposed_ty = Type::array(Type::array(Type::INT, Type::Unitsum(2)), Type::Unitsum(3));
    let t = prim(Prim::Transpose, vec![source], transposed_ty);
    assert_eq!(ints_of(&eval(&expr_unit(t))), vec![1, 4, 2, 5, 3, 6]);

    let matrix = Type::array(
        Type::INT,
        Type::cproduct(vec![Type::Unitsum(2), Type::Unitsum(3)]),
    );
    let flat = int_array(&[1, 2, 3, 4, 5, 6]);
    let m = expr(
        ExprKind::Coerce(CoerceKind::Reshape, Box::new(flat)),
        matrix,
    );
    let result_ty = Type::array(
        Type::INT,
        Type::cproduct(vec![Type::Unitsum(3), Type::Unitsum(2)]),
    );
    let t = prim(Prim::Transpose, vec![m], result_ty);
    assert_eq!(ints_of(&eval(&expr_unit(t))), vec![1, 4, 2, 5, 3, 6]);
}

#[test]
fn numeric_loops_and_zero_of_a_large_array() {
    // var s = 0; for i in 1 .. 10 do s = s + i; done  (i ends as 10)
    let body = vec![
        Stmt::Assign(Place::Global(0), int(0)),
        Stmt::ForRange {
            label: 0,
            var: Place::Global(1),
            var_ty: IntTy::Int,
            from: int(1),
            to: int(10),
            kind: crate::core::ir::RangeKind::Inclusive,
            body: vec![Stmt::Assign(
                Place::Global(0),
                int_op(ArithOp::Add, global(0, Type::INT), global(1, Type::INT)),
            )],
        },
    ];
    let result = expr(
        ExprKind::Tuple(vec![global(0, Type::INT), global(1, Type::INT)]),
        Type::tuple(vec![Type::INT, Type::INT]),
    );
    // A pair of ints is the array `int ^ 2`.
    assert_eq!(
        ints_of(&eval(&unit(vec![], 2, body, Some(result)))),
        vec![55, 10]
    );

    let huge = Type::array(Type::INT, Type::carray(Type::BOOL, Type::Unitsum(50)));
    let zero = spanned(expr(ExprKind::Zero, huge), at(3));
    let error = eval_error(&expr_unit(zero));
    assert_eq!((error.code, error.span), ("R0007", at(3)));

    let big_but_fine = Type::array(Type::Double, Type::Unitsum(1_000_000));
    match eval(&expr_unit(expr(ExprKind::Zero, big_but_fine))) {
        Value::Array(view) => assert_eq!(view.len, 1_000_000),
        other => panic!("expected an array, found {other:?}"),
    }
}
