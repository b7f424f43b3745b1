use crate::syntax::ast::*;
use crate::syntax::span::{Span, Spanned};
use crate::syntax::{
    parse_chunk, parse_expr, parse_program, parse_type, parse_type_list, ChunkParse,
};

fn at<T>(node: T) -> Spanned<T> {
    Spanned::new(node, Span::default())
}

fn name(text: &str) -> Expr {
    at(ExprKind::Name(text.to_string()))
}

fn int(value: u128) -> Expr {
    at(ExprKind::Int(literal(value)))
}

fn literal(value: u128) -> IntLit {
    IntLit {
        value: Some(value),
        suffix: String::new(),
    }
}

fn apply(func: Expr, arg: Expr, how: ApplyForm) -> Expr {
    at(ExprKind::Apply {
        func: Box::new(func),
        arg: Box::new(arg),
        how,
    })
}

fn juxtapose(func: Expr, arg: Expr) -> Expr {
    apply(func, arg, ApplyForm::Juxtapose)
}

fn binary(operator: BinOp, lhs: Expr, rhs: Expr) -> Expr {
    at(ExprKind::Binary(operator, Box::new(lhs), Box::new(rhs)))
}

fn unary(operator: UnOp, operand: Expr) -> Expr {
    at(ExprKind::Unary(operator, Box::new(operand)))
}

fn dot(lhs: Expr, rhs: Expr) -> Expr {
    at(ExprKind::Dot(Box::new(lhs), Box::new(rhs)))
}

fn tuple(items: Vec<Expr>) -> Expr {
    at(ExprKind::Tuple(items))
}

fn ty_name(text: &str) -> TypeExpr {
    at(TypeExprKind::Name(text.to_string()))
}

fn unitsum(value: u128) -> TypeExpr {
    at(TypeExprKind::Unitsum(literal(value)))
}

fn array(base: TypeExpr, index: TypeExpr) -> TypeExpr {
    at(TypeExprKind::Array(Box::new(base), Box::new(index)))
}

fn expr(src: &str) -> Expr {
    parse_expr(src).unwrap_or_else(|errors| panic!("{src:?} failed: {errors:?}"))
}

fn type_of(src: &str) -> TypeExpr {
    parse_type(src).unwrap_or_else(|errors| panic!("{src:?} failed: {errors:?}"))
}

fn program(src: &str) -> Vec<Stmt> {
    let (statements, errors) = parse_program(src);
    assert!(errors.is_empty(), "{src:?} failed: {errors:?}");
    statements
}

fn single_statement(src: &str) -> StmtKind {
    let mut statements = program(src);
    assert_eq!(statements.len(), 1, "{src:?}: {statements:?}");
    statements.remove(0).node
}

fn line_of(src: &str, offset: usize) -> usize {
    src[..offset].matches('\n').count() + 1
}

#[test]
fn dollar_takes_tuples_on_both_sides() {
    assert_eq!(
        expr("println$ a, b"),
        apply(
            name("println"),
            tuple(vec![name("a"), name("b")]),
            ApplyForm::Dollar
        )
    );
    assert_eq!(
        expr("f (1,2), g$ 3,4"),
        apply(
            tuple(vec![
                juxtapose(name("f"), tuple(vec![int(1), int(2)])),
                name("g")
            ]),
            tuple(vec![int(3), int(4)]),
            ApplyForm::Dollar
        )
    );
    assert_eq!(
        expr("f$ g$ x"),
        apply(
            name("f"),
            apply(name("g"), name("x"), ApplyForm::Dollar),
            ApplyForm::Dollar
        )
    );
}

#[test]
fn coercion_is_looser_than_dollar() {
    assert_eq!(
        expr("println$ x :>> int"),
        at(ExprKind::Coerce(
            Box::new(apply(name("println"), name("x"), ApplyForm::Dollar)),
            ty_name("int")
        ))
    );
}

#[test]
fn pipe_is_left_associative_and_looser_than_dollar() {
    assert_eq!(
        expr("3 |> inc |> dbl"),
        apply(
            name("dbl"),
            apply(name("inc"), int(3), ApplyForm::Pipe),
            ApplyForm::Pipe
        )
    );
    assert_eq!(
        expr("x |> f $ y"),
        apply(
            apply(name("f"), name("y"), ApplyForm::Dollar),
            name("x"),
            ApplyForm::Pipe
        )
    );
}

#[test]
fn juxtaposition_postfix_and_prefix_minus() {
    assert_eq!(
        expr("f x y"),
        juxtapose(juxtapose(name("f"), name("x")), name("y"))
    );
    assert_eq!(expr("f x.1"), juxtapose(name("f"), dot(name("x"), int(1))));
    assert_eq!(expr("-x.f"), unary(UnOp::Neg, dot(name("x"), name("f"))));
    assert_eq!(
        expr("-7 / 2"),
        binary(BinOp::Div, unary(UnOp::Neg, int(7)), int(2))
    );
    assert_eq!(expr("f -x"), binary(BinOp::Sub, name("f"), name("x")));
    assert_eq!(
        expr("1 + 2 * 3 - 4"),
        binary(
            BinOp::Sub,
            binary(BinOp::Add, int(1), binary(BinOp::Mul, int(2), int(3))),
            int(4)
        )
    );
    assert_eq!(
        expr("\"ab\" \"cd\""),
        juxtapose(
            at(ExprKind::Str(b"ab".to_vec())),
            at(ExprKind::Str(b"cd".to_vec()))
        )
    );
    assert_eq!(
        expr("caseno x y"),
        juxtapose(at(ExprKind::Caseno(Box::new(name("x")))), name("y"))
    );
    assert_eq!(
        expr("3.inc.dbl"),
        dot(dot(int(3), name("inc")), name("dbl"))
    );
}

#[test]
fn dots_with_spaces_and_parenthesised_right_hand_sides() {
    assert_eq!(
        expr("y . sel . _strr"),
        dot(dot(name("y"), name("sel")), name("_strr"))
    );
    assert_eq!(expr("t.1 .1"), dot(dot(name("t"), int(1)), int(1)));
    assert_eq!(
        expr("y.(i \\, j)"),
        dot(name("y"), at(ExprKind::CTuple(vec![name("i"), name("j")])))
    );
    assert_eq!(expr("a.true"), dot(name("a"), at(ExprKind::Bool(true))));
    assert_eq!(expr("42._strr"), dot(int(42), name("_strr")));
}

#[test]
fn string_index_and_slices() {
    let s = || Box::new(name("s"));
    assert_eq!(
        expr("s.[i]"),
        at(ExprKind::StrIndex(s(), Box::new(name("i"))))
    );
    assert_eq!(
        expr("s.[i to j]"),
        at(ExprKind::StrSlice(
            s(),
            Some(Box::new(name("i"))),
            Some(Box::new(name("j")))
        ))
    );
    assert_eq!(
        expr("s.[i to]"),
        at(ExprKind::StrSlice(s(), Some(Box::new(name("i"))), None))
    );
    assert_eq!(
        expr("s.[to j]"),
        at(ExprKind::StrSlice(s(), None, Some(Box::new(name("j")))))
    );
}

#[test]
fn range_slices() {
    let slice = |from: Option<&str>, to: Option<&str>, inclusive| {
        at(ExprKind::Slice {
            base: Box::new(name("x")),
            from: from.map(|n| Box::new(name(n))),
            to: to.map(|n| Box::new(name(n))),
            inclusive,
        })
    };
    assert_eq!(expr("x.(i..j)"), slice(Some("i"), Some("j"), true));
    assert_eq!(expr("x.(i..<j)"), slice(Some("i"), Some("j"), false));
    assert_eq!(expr("x.(i..)"), slice(Some("i"), None, true));
    assert_eq!(expr("x.(..j)"), slice(None, Some("j"), true));
    assert_eq!(expr("x.(..<j)"), slice(None, Some("j"), false));
    assert!(matches!(expr("x.(i)").node, ExprKind::Dot(..)));
}

#[test]
fn logic_and_comparisons() {
    assert_eq!(
        expr("not a == b"),
        unary(UnOp::Not, binary(BinOp::Eq, name("a"), name("b")))
    );
    assert_eq!(
        expr("a or b and c"),
        binary(
            BinOp::Or,
            name("a"),
            binary(BinOp::And, name("b"), name("c"))
        )
    );
    let errors = parse_expr("1 < a < 3").unwrap_err();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].span, Span::new(6, 7));
}

#[test]
fn bitwise_levels_between_comparisons_and_sums() {
    // Bitwise operators: `\|` < `\^` < `\&` < `<<` `>>` < `+ -`, all above the comparisons.
    assert_eq!(
        expr("x \\& m == 0u"),
        binary(
            BinOp::Eq,
            binary(BinOp::BitAnd, name("x"), name("m")),
            at(ExprKind::Int(IntLit {
                value: Some(0),
                suffix: "u".into()
            }))
        )
    );
    assert_eq!(
        expr("1 << 2 + 1"),
        binary(BinOp::Shl, int(1), binary(BinOp::Add, int(2), int(1)))
    );
    assert_eq!(
        expr("a \\| b \\^ c \\& d >> e"),
        binary(
            BinOp::BitOr,
            name("a"),
            binary(
                BinOp::BitXor,
                name("b"),
                binary(
                    BinOp::BitAnd,
                    name("c"),
                    binary(BinOp::Shr, name("d"), name("e"))
                )
            )
        )
    );
    assert_eq!(
        expr("a << b << c"),
        binary(
            BinOp::Shl,
            binary(BinOp::Shl, name("a"), name("b")),
            name("c")
        )
    );
    assert_eq!(expr("~a"), unary(UnOp::Compl, name("a")));
    // `>>` is two adjacent `>`; `> >` is not a shift, `:>>` is still a coercion.
    assert!(parse_expr("a > > b").is_err());
    assert_eq!(
        expr("x :>> int"),
        at(ExprKind::Coerce(Box::new(name("x")), ty_name("int")))
    );
    assert_eq!(expr("a >= b"), binary(BinOp::Ge, name("a"), name("b")));
}

#[test]
fn membership_is_a_comparison() {
    // Membership binds like the comparisons.
    assert_eq!(
        expr("1 + 2 in a"),
        binary(BinOp::In, binary(BinOp::Add, int(1), int(2)), name("a"))
    );
    assert_eq!(expr("e \\in a"), binary(BinOp::In, name("e"), name("a")));
    assert_eq!(
        expr("e \\notin a"),
        binary(BinOp::NotIn, name("e"), name("a"))
    );
    assert_eq!(
        expr("e not in a"),
        binary(BinOp::NotIn, name("e"), name("a"))
    );
    assert_eq!(
        expr("x in a and y not in a"),
        binary(
            BinOp::And,
            binary(BinOp::In, name("x"), name("a")),
            binary(BinOp::NotIn, name("y"), name("a"))
        )
    );
}

#[test]
fn assert_and_compound_bitwise_assignments() {
    assert_eq!(
        single_statement("assert(x == 1);"),
        StmtKind::Assert(binary(BinOp::Eq, name("x"), int(1)))
    );
    for (src, op) in [
        ("x &= m;", AssignOp::BitAnd),
        ("x |= m;", AssignOp::BitOr),
        ("x ^= m;", AssignOp::BitXor),
        ("x <<= m;", AssignOp::Shl),
        ("x >>= m;", AssignOp::Shr),
    ] {
        assert_eq!(
            single_statement(src),
            StmtKind::Assign {
                target: name("x"),
                op,
                value: name("m")
            },
            "{src}"
        );
    }
    assert_eq!(
        expr("f\"%d\" 5"),
        juxtapose(at(ExprKind::Format(b"%d".to_vec())), int(5))
    );
}

#[test]
fn compact_tuples_chain_and_nest() {
    assert_eq!(
        expr("a \\, b \\, c"),
        at(ExprKind::CTuple(vec![name("a"), name("b"), name("c")]))
    );
    assert_eq!(
        expr("(a \\, b) \\, c"),
        at(ExprKind::CTuple(vec![
            at(ExprKind::CTuple(vec![name("a"), name("b")])),
            name("c")
        ]))
    );
    assert_eq!(
        expr("`1:3 \\, true"),
        at(ExprKind::CTuple(vec![
            at(ExprKind::UnitsumValue(literal(1), unitsum(3))),
            at(ExprKind::Bool(true))
        ]))
    );
    assert_eq!(
        expr("`2 of 3"),
        at(ExprKind::UnitsumValue(literal(2), unitsum(3)))
    );
}

#[test]
fn injections_projections_and_instantiation() {
    assert_eq!(
        expr("case 1 of (3 \\+ 2)"),
        at(ExprKind::Case(
            literal(1),
            at(TypeExprKind::CSum(vec![unitsum(3), unitsum(2)]))
        ))
    );
    assert_eq!(
        expr("(case 1 of (3 \\+ 2)) (`1:2)"),
        juxtapose(
            at(ExprKind::Case(
                literal(1),
                at(TypeExprKind::CSum(vec![unitsum(3), unitsum(2)]))
            )),
            at(ExprKind::UnitsumValue(literal(1), unitsum(2)))
        )
    );
    assert_eq!(
        expr("proj 1 of int * string"),
        at(ExprKind::Proj(
            literal(1),
            at(TypeExprKind::Product(vec![
                ty_name("int"),
                ty_name("string")
            ]))
        ))
    );
    assert_eq!(
        expr("aproj i of int ^ 3"),
        at(ExprKind::Aproj(
            Box::new(name("i")),
            array(ty_name("int"), unitsum(3))
        ))
    );
    assert_eq!(expr("ident of int"), at(ExprKind::Ident(ty_name("int"))));
    assert_eq!(
        expr("Typing::memcount[3 \\* 4]"),
        at(ExprKind::TypeApply(
            Box::new(at(ExprKind::Qualified(vec![
                "Typing".into(),
                "memcount".into()
            ]))),
            vec![at(TypeExprKind::CProduct(vec![unitsum(3), unitsum(4)]))]
        ))
    );
    // Type arguments on a module's segment: every segment with its own.
    assert_eq!(
        expr("X[long]::f[int]"),
        at(ExprKind::QualifiedArgs(vec![
            (at("X".to_string()), vec![ty_name("long")]),
            (at("f".to_string()), vec![ty_name("int")]),
        ]))
    );
    assert_eq!(
        expr("Show[int]::show"),
        at(ExprKind::QualifiedArgs(vec![
            (at("Show".to_string()), vec![ty_name("int")]),
            (at("show".to_string()), Vec::new()),
        ]))
    );
    assert_eq!(
        expr("M::N::f[int]"),
        at(ExprKind::TypeApply(
            Box::new(at(ExprKind::Qualified(vec![
                "M".into(),
                "N".into(),
                "f".into()
            ]))),
            vec![ty_name("int")]
        ))
    );
    assert_eq!(
        expr("f[int, 3 \\* 2] ()"),
        juxtapose(
            at(ExprKind::TypeApply(
                Box::new(name("f")),
                vec![
                    ty_name("int"),
                    at(TypeExprKind::CProduct(vec![unitsum(3), unitsum(2)]))
                ]
            )),
            at(ExprKind::Unit)
        )
    );
}

#[test]
fn atoms_hash_address_if_and_lambdas() {
    assert_eq!(expr("#f"), at(ExprKind::Hash(Box::new(name("f")))));
    assert_eq!(
        expr("&x.i"),
        at(ExprKind::Addr(
            PtrMode::ReadWrite,
            Box::new(dot(name("x"), name("i"))),
        ))
    );
    assert_eq!(
        expr("if c then a elif d then b else e endif"),
        at(ExprKind::If(
            vec![(name("c"), name("a")), (name("d"), name("b"))],
            Box::new(name("e"))
        ))
    );
    let ExprKind::Lambda(definition) = expr("fun (x:int) (y:int) : int => x + y").node else {
        panic!("not a lambda");
    };
    assert_eq!(definition.params.len(), 2);
    assert_eq!(definition.ret, Some(ty_name("int")));
    assert_eq!(
        *definition.body,
        FunBody::Expr(binary(BinOp::Add, name("x"), name("y")))
    );
    let ExprKind::Lambda(definition) = expr("proc (x:int) { println x; }").node else {
        panic!("not a lambda");
    };
    assert_eq!(definition.kind, FunKind::Proc);
    assert!(matches!(*definition.body, FunBody::Block(ref body) if body.len() == 1));
    assert!(matches!(
        expr("(g, (fun (n:int) => n * n))").node,
        ExprKind::Tuple(ref items) if matches!(items[1].node, ExprKind::Lambda(_))
    ));
}

#[test]
fn match_expressions() {
    let ExprKind::Match(scrutinee, arms) = expr(
        "match x with | 1 | 2 => \"small\" | k when k < 0 => \"neg\" | _ => \"other\" endmatch",
    )
    .node
    else {
        panic!("not a match");
    };
    assert_eq!(*scrutinee, name("x"));
    assert_eq!(arms.len(), 3);
    assert_eq!(arms[0].patterns.len(), 2);
    assert!(arms[1].guard.is_some());
    assert_eq!(arms[2].patterns[0], at(PatternKind::Wildcard));
    assert!(matches!(
        expr("println$ match 2 with | _ => 1 endmatch").node,
        ExprKind::Apply {
            how: ApplyForm::Dollar,
            ..
        }
    ));
}

#[test]
fn patterns() {
    let ExprKind::Match(_, arms) = expr(
        "match v with | (a, (b, -1)) => 0 | case 2 => 1 | case 1 x => 2 | `0 y => 3 | Rect (w, h) => 4 | Dot => 5 | \"s\" => 6 | () => 7 endmatch",
    )
    .node
    else {
        panic!("not a match");
    };
    let first: Vec<Pattern> = arms.iter().map(|arm| arm.patterns[0].clone()).collect();
    assert_eq!(
        first[0],
        at(PatternKind::Tuple(vec![
            at(PatternKind::Name("a".into())),
            at(PatternKind::Tuple(vec![
                at(PatternKind::Name("b".into())),
                at(PatternKind::Int {
                    negative: true,
                    lit: literal(1)
                })
            ]))
        ]))
    );
    assert_eq!(first[1], at(PatternKind::Case(literal(2), None)));
    assert_eq!(
        first[2],
        at(PatternKind::Case(
            literal(1),
            Some(Box::new(at(PatternKind::Name("x".into()))))
        ))
    );
    assert_eq!(
        first[3],
        at(PatternKind::Case(
            literal(0),
            Some(Box::new(at(PatternKind::Name("y".into()))))
        ))
    );
    assert!(matches!(first[4].node, PatternKind::Ctor(ref ctor, _) if ctor == "Rect"));
    // A bare upper-case name is a constant constructor.
    assert_eq!(first[5], at(PatternKind::Constant("Dot".into())));
    assert_eq!(first[6], at(PatternKind::Str(b"s".to_vec())));
    assert_eq!(first[7], at(PatternKind::Unit));
}

#[test]
fn list_cons_is_right_associative_between_comparison_and_sum() {
    let cons = |h: Expr, t: Expr| juxtapose(name("Cons"), tuple(vec![h, t]));
    assert_eq!(expr("1 ! 2 ! e"), cons(int(1), cons(int(2), name("e"))));
    assert_eq!(
        expr("a + 1 ! e == f"),
        binary(
            BinOp::Eq,
            cons(binary(BinOp::Add, name("a"), int(1)), name("e")),
            name("f")
        )
    );
    let ExprKind::Match(_, arms) = expr("match v with | h ! t => 0 | k, v ! r => 1 endmatch").node
    else {
        panic!("not a match");
    };
    let cons_pattern = |h: Pattern, t: Pattern| {
        at(PatternKind::Ctor(
            "Cons".into(),
            Box::new(at(PatternKind::Tuple(vec![h, t]))),
        ))
    };
    let bind = |n: &str| at(PatternKind::Name(n.into()));
    assert_eq!(arms[0].patterns[0], cons_pattern(bind("h"), bind("t")));
    assert_eq!(
        arms[1].patterns[0],
        cons_pattern(
            at(PatternKind::Tuple(vec![bind("k"), bind("v")])),
            bind("r")
        )
    );
}

#[test]
fn felix_patterns_bindings_equalities_lists_and_inner_guards() {
    let ExprKind::Match(_, arms) = expr(
        "match v with | ?X => 0 | val y => 1 | $(k + 1) => 2 | [a, b] => 3 | [h,, t] => 4 | [] => 5 | (x when x > 0), _ => 6 endmatch",
    )
    .node
    else {
        panic!("not a match");
    };
    let first: Vec<Pattern> = arms.iter().map(|arm| arm.patterns[0].clone()).collect();
    let named = |n: &str| {
        at(PatternKind::As(
            Box::new(at(PatternKind::Wildcard)),
            at(n.to_string()),
        ))
    };
    // `?X` binds even an upper-case name; `val y` is the same.
    assert_eq!(first[0], named("X"));
    assert_eq!(first[1], named("y"));
    assert_eq!(
        first[2],
        at(PatternKind::Expr(Box::new(binary(
            BinOp::Add,
            name("k"),
            int(1)
        ))))
    );
    let cons = |h: Pattern, t: Pattern| {
        at(PatternKind::Ctor(
            "Cons".into(),
            Box::new(at(PatternKind::Tuple(vec![h, t]))),
        ))
    };
    let bind = |n: &str| at(PatternKind::Name(n.into()));
    let empty = || at(PatternKind::Constant("Empty".into()));
    assert_eq!(first[3], cons(bind("a"), cons(bind("b"), empty())));
    assert_eq!(first[4], cons(bind("h"), bind("t")));
    assert_eq!(first[5], empty());
    let PatternKind::Tuple(parts) = &first[6].node else {
        panic!("not a tuple");
    };
    assert_eq!(
        parts[0],
        at(PatternKind::Guarded {
            pattern: Box::new(bind("x")),
            with: Vec::new(),
            guard: Some(Box::new(binary(BinOp::Gt, name("x"), int(0)))),
        })
    );
}

#[test]
fn felix_extend_list_literal_and_let_fun() {
    assert_eq!(
        expr("extend a, (b, c) with d, e end"),
        at(ExprKind::Extend(
            vec![name("a"), tuple(vec![name("b"), name("c")])],
            Box::new(tuple(vec![name("d"), name("e")]))
        ))
    );
    assert_eq!(
        type_of("extend int, A with B end"),
        at(TypeExprKind::Extend(
            vec![ty_name("int"), ty_name("A")],
            Box::new(ty_name("B"))
        ))
    );
    assert_eq!(
        expr("([1, 2])"),
        juxtapose(name("list"), tuple(vec![int(1), int(2)]))
    );
    assert_eq!(expr("([x])"), juxtapose(name("list"), name("x")));
    let ExprKind::LetFun(def, body) = expr("let fun f (x: int) => x in f 1").node else {
        panic!("not a let fun");
    };
    assert_eq!(def.name.map(|n| n.node), Some("f".to_string()));
    assert_eq!(*body, juxtapose(name("f"), int(1)));
    let ExprKind::LetFun(def, _) = expr("let fun g : int -> int = | 0 => 1 | n => n in g 2").node
    else {
        panic!("not a let fun by matching");
    };
    assert!(matches!(*def.body, FunBody::Expr(ref e) if matches!(e.node, ExprKind::Match(..))));
    assert!(matches!(
        expr("let match v with | x => x").node,
        ExprKind::Match(..)
    ));
}

#[test]
fn type_precedence() {
    assert_eq!(
        type_of("int ^ 2 ^ 3"),
        array(array(ty_name("int"), unitsum(2)), unitsum(3))
    );
    assert_eq!(
        type_of("int ^ 3 \\* 2"),
        at(TypeExprKind::CProduct(vec![
            array(ty_name("int"), unitsum(3)),
            unitsum(2)
        ]))
    );
    assert_eq!(
        type_of("3 \\+ 2 * 4"),
        at(TypeExprKind::CSum(vec![
            unitsum(3),
            at(TypeExprKind::Product(vec![unitsum(2), unitsum(4)]))
        ]))
    );
    assert_eq!(
        type_of("int -> int -> int"),
        at(TypeExprKind::Fun(
            Box::new(ty_name("int")),
            Box::new(at(TypeExprKind::Fun(
                Box::new(ty_name("int")),
                Box::new(ty_name("int"))
            )))
        ))
    );
    assert_eq!(
        type_of("(3 \\* 2) \\* 4"),
        at(TypeExprKind::CProduct(vec![
            at(TypeExprKind::CProduct(vec![unitsum(3), unitsum(2)])),
            unitsum(4)
        ]))
    );
    assert_eq!(
        type_of("3 \\* 2 \\* 4"),
        at(TypeExprKind::CProduct(vec![
            unitsum(3),
            unitsum(2),
            unitsum(4)
        ]))
    );
    assert_eq!(
        type_of("int + string * 2"),
        at(TypeExprKind::Sum(vec![
            ty_name("int"),
            at(TypeExprKind::Product(vec![ty_name("string"), unitsum(2)]))
        ]))
    );
    assert_eq!(type_of("()"), at(TypeExprKind::Unit));
    assert_eq!(
        type_of("2 \\^ 100"),
        at(TypeExprKind::CArray(
            Box::new(unitsum(2)),
            Box::new(unitsum(100))
        ))
    );
    assert!(parse_type("int ^").is_err());
}

#[test]
fn unitsum_arithmetic() {
    let arith = |op, lhs, rhs| at(TypeExprKind::UnitsumArith(op, Box::new(lhs), Box::new(rhs)));
    assert_eq!(
        type_of("2 `+ 3"),
        arith(UnitsumOp::Add, unitsum(2), unitsum(3))
    );
    assert_eq!(
        type_of("2 `* 3 `+ 1"),
        arith(
            UnitsumOp::Add,
            arith(UnitsumOp::Mul, unitsum(2), unitsum(3)),
            unitsum(1)
        )
    );
    assert_eq!(
        type_of("7 `- 2 `- 1"),
        arith(
            UnitsumOp::Sub,
            arith(UnitsumOp::Sub, unitsum(7), unitsum(2)),
            unitsum(1)
        )
    );
}

#[test]
fn type_lists() {
    let types = parse_type_list("int ^ 2 ^ 3, int ^ (3 \\* 2)").unwrap();
    assert_eq!(types.len(), 2);
    assert_eq!(
        types[1],
        array(
            ty_name("int"),
            at(TypeExprKind::CProduct(vec![unitsum(3), unitsum(2)]))
        )
    );
}

#[test]
fn variables_and_assignments() {
    assert!(matches!(
        single_statement("var x : int;"),
        StmtKind::Var {
            ty: Some(_),
            init: None,
            ..
        }
    ));
    assert!(matches!(
        single_statement("var t = 1, \"one\";"),
        StmtKind::Var {
            ty: None,
            init: Some(Spanned {
                node: ExprKind::Tuple(_),
                ..
            }),
            ..
        }
    ));
    assert!(matches!(
        single_statement("val y : int = 3;"),
        StmtKind::Val { ty: Some(_), .. }
    ));
    assert_eq!(
        single_statement("x += 1;"),
        StmtKind::Assign {
            target: name("x"),
            op: AssignOp::Add,
            value: int(1)
        }
    );
    assert_eq!(
        single_statement("--x;"),
        StmtKind::Incr {
            target: name("x"),
            up: false
        }
    );
    assert_eq!(
        single_statement("&x.i <- v;"),
        StmtKind::Store {
            target: dot(name("x"), name("i")),
            value: name("v")
        }
    );
    assert_eq!(single_statement("endl;"), StmtKind::Expr(name("endl")));
    assert_eq!(single_statement("return;"), StmtKind::Return(None));
}

#[test]
fn definitions() {
    let StmtKind::Fun(definition) =
        single_statement("fun f [T, N:COMPACTLINEAR] (x:int, y:int) (z:T) : T => z;")
    else {
        panic!("not a function");
    };
    assert_eq!(definition.type_params.len(), 2);
    assert_eq!(definition.type_params[0].kind, KindExpr::Type);
    assert_eq!(definition.type_params[1].kind, KindExpr::CompactLinear);
    assert_eq!(definition.params.len(), 2);
    assert_eq!(definition.params[0].params.len(), 2);
    let statements = program(
        "fun g (x:int) : int = { return x; } proc p (s:string) { println s; } gen h () : int = { return 1; }",
    );
    assert_eq!(statements.len(), 3);
    assert!(matches!(
        &statements[1].node,
        StmtKind::Fun(def) if def.kind == FunKind::Proc
    ));
    assert!(matches!(
        &statements[2].node,
        StmtKind::Fun(def) if def.kind == FunKind::Gen && def.params[0].params.is_empty()
    ));
    assert_eq!(
        single_statement("typedef five = 2 `+ 3;"),
        StmtKind::Typedef {
            name: at("five".to_string()),
            params: Vec::new(),
            ty: at(TypeExprKind::UnitsumArith(
                UnitsumOp::Add,
                Box::new(unitsum(2)),
                Box::new(unitsum(3))
            ))
        }
    );
    // Opaque types: `type` is recognised by position (it is not reserved).
    assert_eq!(
        single_statement("type Key = new string with Eq;"),
        StmtKind::NewType {
            name: at("Key".to_string()),
            repr: Some(at(TypeExprKind::Name("string".to_string()))),
            grants: vec![at("Eq".to_string())],
        }
    );
    assert_eq!(
        single_statement("type Key;"),
        StmtKind::NewType {
            name: at("Key".to_string()),
            repr: None,
            grants: vec![],
        }
    );
    assert!(matches!(
        single_statement("type Pair = new int * int;"),
        StmtKind::NewType { repr: Some(_), ref grants, .. } if grants.is_empty()
    ));
    assert!(matches!(
        single_statement("struct P { x:int; y:string; }"),
        StmtKind::Struct { ref fields, .. } if fields.len() == 2
    ));
    let StmtKind::Variant { ctors, .. } =
        single_statement("variant shape = | Circle of double | Rect of double * double | Dot;")
    else {
        panic!("not a variant");
    };
    assert_eq!(ctors.len(), 3);
    assert!(ctors[2].1.is_none());
    // Parametric declarations and type applications.
    let StmtKind::Typedef { params, ty, .. } =
        single_statement("typedef grid[N:COMPACTLINEAR] = double ^ N;")
    else {
        panic!("not a typedef");
    };
    assert_eq!(params.len(), 1);
    assert_eq!(params[0].kind, KindExpr::CompactLinear);
    assert!(matches!(ty.node, TypeExprKind::Array(..)));
    assert!(matches!(
        single_statement("struct Box[T] { v:T; }"),
        StmtKind::Struct { ref params, ref fields, .. } if params.len() == 1 && fields.len() == 1
    ));
    let StmtKind::Variant { params, ctors, .. } =
        single_statement("variant tree[T] = | Leaf of T | Node of tree[T] * tree[T];")
    else {
        panic!("not a variant");
    };
    assert_eq!((params.len(), ctors.len()), (1, 2));
    let Some(TypeExprKind::Product(operands)) = ctors[1].1.as_ref().map(|t| &t.node) else {
        panic!("not a product");
    };
    assert_eq!(
        operands[0],
        at(TypeExprKind::Apply(
            at("tree".to_string()),
            vec![at(TypeExprKind::Name("T".to_string()))]
        ))
    );
    assert!(matches!(
        single_statement("variant v = A of int | B;"),
        StmtKind::Variant { ref ctors, .. } if ctors.len() == 2
    ));
}

#[test]
fn if_statements() {
    let StmtKind::If {
        branches,
        otherwise,
    } = single_statement("if a do x; elif b do y; z; else w; done")
    else {
        panic!("not an if");
    };
    assert_eq!(branches.len(), 2);
    assert_eq!(branches[1].1.len(), 2);
    assert_eq!(otherwise.map(|body| body.len()), Some(1));
    assert!(matches!(
        single_statement("if a perform x = 1;"),
        StmtKind::If { ref branches, otherwise: None } if branches[0].1.len() == 1
    ));
    assert!(matches!(
        single_statement("if a break outer;"),
        StmtKind::If { ref branches, .. } if matches!(branches[0].1[0].node, StmtKind::Break(_))
    ));
}

#[test]
fn if_then_statement_is_e0101_at_the_if() {
    let src = "var x = 1;\nif x > 0 then println \"pos\"; endif\nprintln x;";
    let (statements, errors) = parse_program(src);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].code, "E0101");
    assert_eq!(errors[0].span, Span::new(11, 13));
    assert!(errors[0].help.as_deref().unwrap().contains("do"));
    assert_eq!(statements.len(), 3);
    assert!(matches!(statements[1].node, StmtKind::IfThenStatement(_)));
}

#[test]
fn loops() {
    let StmtKind::For {
        label,
        var,
        kind,
        body,
    } = single_statement("lp: for i in ..[3 \\* 2] do println i; done")
    else {
        panic!("not a for");
    };
    assert_eq!(label.map(|label| label.node), Some("lp".to_string()));
    assert_eq!(var.node, "i");
    assert!(matches!(kind, ForKind::Type(_)));
    assert_eq!(body.len(), 1);
    let StmtKind::For { kind, body, .. } =
        single_statement("for i in ..[2] for j in ..[3] perform print$ i;")
    else {
        panic!("not a for");
    };
    assert!(matches!(kind, ForKind::Type(_)));
    assert!(matches!(body[0].node, StmtKind::For { ref body, .. } if body.len() == 1));
    let kinds: Vec<ForKind> = program(
        "for v in arr do done for i in 0 ..< n do done for i in 1 .. 3 do done \
         for i in 1 upto 3 do done for var i in 3 downto 1 do done",
    )
    .into_iter()
    .map(|statement| match statement.node {
        StmtKind::For { kind, .. } => kind,
        other => panic!("not a for: {other:?}"),
    })
    .collect();
    assert_eq!(kinds[0], ForKind::Array(name("arr")));
    assert_eq!(kinds[1], ForKind::RangeExclusive(int(0), name("n")));
    assert_eq!(kinds[2], ForKind::RangeInclusive(int(1), int(3)));
    assert_eq!(
        kinds[3],
        ForKind::Upto {
            from: int(1),
            to: int(3),
            declare: false
        }
    );
    assert_eq!(
        kinds[4],
        ForKind::Downto {
            from: int(3),
            to: int(1),
            declare: true
        }
    );
    assert!(matches!(
        single_statement("w: while i < 3 do ++i; if i == 2 continue w; done"),
        StmtKind::While { label: Some(_), ref body, .. } if body.len() == 2
    ));
    assert!(matches!(
        single_statement("until done_ do x; done"),
        StmtKind::Until { .. }
    ));
    assert!(matches!(
        single_statement("r: repeat do break r; done"),
        StmtKind::Repeat { .. }
    ));
    assert!(
        matches!(single_statement("begin var x = 1; end"), StmtKind::Block(ref body) if body.len() == 1)
    );
}

#[test]
fn unlabelled_break_is_a_syntax_error() {
    let (_, errors) = parse_program("while true do break; done");
    assert!(!errors.is_empty());
}

#[test]
fn match_statements() {
    let StmtKind::Match(_, arms) = single_statement(
        "match x with | 1 => println \"one\"; | _ => println \"other\"; endmatch;",
    ) else {
        panic!("not a match statement");
    };
    assert_eq!(arms.len(), 2);
    assert_eq!(arms[0].body.len(), 1);
}

#[test]
fn keyword_as_name_errors_at_the_keyword() {
    let src = "var sum_ = 0;\nvar total = 0;\nprintln total;";
    let (_, errors) = parse_program(src);
    assert!(!errors.is_empty());
    assert_eq!(line_of(src, errors[0].span.start), 2);
    assert!(errors[0].message.contains("total"), "{}", errors[0].message);
}

#[test]
fn several_errors_are_all_reported() {
    let src = "var a = ;\nvar b = 1;\nvar c = );\nprintln b;\nval = 3;";
    let (statements, errors) = parse_program(src);
    let lines: Vec<usize> = errors
        .iter()
        .map(|error| line_of(src, error.span.start))
        .collect();
    assert_eq!(lines, vec![1, 3, 5], "{errors:?}");
    assert_eq!(errors[0].message, "expected expression, found `;`");
    assert!(statements
        .iter()
        .any(|statement| matches!(statement.node, StmtKind::Var { .. })));
}

#[test]
fn expected_semicolon_message() {
    let (_, errors) = parse_program("println (1, 2));");
    assert_eq!(errors[0].code, "E0100");
    assert!(errors[0].message.contains("`;`"), "{}", errors[0].message);
    assert!(
        errors[0].message.ends_with("found `)`"),
        "{}",
        errors[0].message
    );
    assert!(!errors[0].at_end);
}

#[test]
fn lexical_errors_are_reported_by_the_parser_entry_points() {
    let (_, errors) = parse_program("var x = 0x1d;");
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].code, "E0602");
    let (_, errors) = parse_program("println$ x.1.0;");
    assert_eq!(errors.len(), 1);
    assert!(errors[0].help.is_some());
}

#[test]
fn repl_chunks() {
    for src in [
        "1 +",
        "var t = (1,",
        "fun f (x:int) : int = {",
        "if true do",
        "match 3 with | 1 => \"one\"",
        "\"\"\"abc",
        "/* open",
        "val y = if 1 < 2 then 3 else",
        "val z = (if 1 < 2 then 3 else 4",
        "match 3 with | 1 => println \"one\"; | 2 => println \"two\";",
    ] {
        assert!(
            matches!(parse_chunk(src), ChunkParse::Incomplete),
            "{src:?}"
        );
    }
    assert!(matches!(parse_chunk("var b = ;"), ChunkParse::Invalid(_)));
    assert!(matches!(parse_chunk("1 2 )"), ChunkParse::Invalid(_)));
    for src in [
        "sq x",
        "(1, \"a\", 2.5)",
        "`1:3 \\, true",
        "match 3 with | _ => 1 endmatch",
    ] {
        assert!(
            matches!(parse_chunk(src), ChunkParse::Complete(Chunk::Expr(_))),
            "{src:?}"
        );
    }
    for (src, count) in [
        ("x = x + 1;", 1),
        ("for i in ..[3] do print$ i; done println \"\";", 2),
        ("  // only a comment", 0),
        ("", 0),
        ("sq x;", 1),
        // Open-ended `if` and `match` (no `endif`, `endmatch`) end at the `;` or `)`.
        ("val x = if 1 < 2 then 3 else 4; println x;", 2),
        ("val x = (if 1 < 2 then 3 else 4) + 1;", 1),
        ("val x = match 3 with | 1 => 1 | _ => 2; println x;", 2),
    ] {
        match parse_chunk(src) {
            ChunkParse::Complete(Chunk::Stmts(statements)) => {
                assert_eq!(statements.len(), count, "{src:?}")
            }
            other => panic!("{src:?}: {other:?}"),
        }
    }
}
