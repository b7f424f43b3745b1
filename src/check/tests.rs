//! Checker tests: the type of expressions after a few definitions, and the error codes of
//! ill-typed programs. Tests are data: one `ty` / `code` helper each.

use crate::check::Checker;
use crate::syntax;

/// The type (as the checker prints it) of the last expression, after the definitions before it.
fn ty(defs: &str, expr: &str) -> String {
    let mut c = Checker::new();
    let (stmts, errors) = syntax::parse_program(crate::PRELUDE);
    assert!(errors.is_empty());
    c.check_program(&stmts).expect("prelude checks");
    let (stmts, errors) = syntax::parse_program(defs);
    assert!(errors.is_empty(), "{errors:?}");
    c.check_program(&stmts).unwrap_or_else(|d| panic!("{d:?}"));
    let e = syntax::parse_expr(expr).unwrap_or_else(|e| panic!("{e:?}"));
    match c.type_of_expr(&e) {
        Ok(t) => t.to_string(),
        Err(d) => format!("error {}", d[0].code),
    }
}

/// The codes of the static errors of a program (empty when it checks).
fn codes(src: &str) -> Vec<&'static str> {
    let mut c = Checker::new();
    let (stmts, errors) = syntax::parse_program(crate::PRELUDE);
    assert!(errors.is_empty());
    c.check_program(&stmts).expect("prelude checks");
    let (stmts, errors) = syntax::parse_program(src);
    if !errors.is_empty() {
        return errors.iter().map(|e| e.code).collect();
    }
    match c.check_program(&stmts) {
        Ok(_) => vec![],
        Err(d) => d.iter().map(|d| d.code).collect(),
    }
}

#[test]
fn literal_and_operator_types() {
    assert_eq!(ty("", "1 + 2"), "int");
    assert_eq!(ty("", "1L + 2"), "long");
    assert_eq!(ty("", "3 + 4L"), "long");
    assert_eq!(ty("", "7i8 + 1i64"), "int64");
    assert_eq!(ty("", "2.5 * 2.0"), "double");
    assert_eq!(ty("", "1.25f * 2.0f"), "float");
    assert_eq!(ty("", "\"ab\" * 3"), "string");
    assert_eq!(ty("", "1 < 2"), "bool");
    assert_eq!(ty("", "5uz"), "size");
    assert_eq!(ty("", "1 + 2.0"), "error E0301");
    assert_eq!(ty("", "1u + 2"), "error E0301");
}

#[test]
fn tuples_arrays_and_compact_values() {
    assert_eq!(ty("", "(1, \"a\", 2.5)"), "int * string * double");
    assert_eq!(ty("", "(1, 2, 3)"), "int ^ 3");
    assert_eq!(ty("", "(1, (2, \"x\"))"), "int * (int * string)");
    assert_eq!(ty("", "`1:3"), "3");
    assert_eq!(ty("", "`1:3 \\, true"), "3 \\* 2");
    // A compact pair of two `3`s is `3 \\^ 2` in normal form, shown as written.
    assert_eq!(ty("", "`1:3 \\, `2:3"), "3 \\* 3");
    assert_eq!(ty("", "case 1 of (3 \\+ 2)"), "bool -> 3 \\+ 2");
    assert_eq!(ty("", "(case 1 of (3 \\+ 2)) (`0:2)"), "3 \\+ 2");
    assert_eq!(
        ty("", "(1, 2, 3, 4, 5, 6) :>> int ^ (3 \\* 2)"),
        "int ^ (3 \\* 2)"
    );
    assert_eq!(ty("", "Typing::memcount[3 \\* 4]"), "size");
    assert_eq!(ty("", "Typing::memcount[2 \\^ 100]"), "natural");
    assert_eq!(ty("", "5 :>> (3 \\* 2)"), "3 \\* 2");
    assert_eq!(ty("var c = `1:3 \\, `1:2;", "c.1"), "bool");
}

#[test]
fn functions_and_polymorphism() {
    assert_eq!(ty("", "fun (x:int) => x.str"), "int -> string");
    assert_eq!(
        ty("fun add3 (x:int) (y:int) (z:int) => x + y + z;", "add3 1"),
        "int -> int -> int"
    );
    assert_eq!(ty("fun id[T] (x:T) => x;", "id 5"), "int");
    assert_eq!(ty("fun id[T] (x:T) => x;", "id[double] 2.5"), "double");
    assert_eq!(
        ty("fun pair_up[T] (x:T) => x, x;", "pair_up \"a\""),
        "string ^ 2"
    );
    assert_eq!(
        ty("fun tot[N:COMPACTLINEAR] (a:int ^ N) : int => fold_left (fun (x:int) (y:int) => x + y) 0 a;", "tot ((1, 2, 3, 4, 5, 6) :>> int ^ (2 \\* 3))"),
        "int"
    );
    assert_eq!(ty("", "map (fun (v:int) => v.str) (1, 2, 3)"), "string ^ 3");
    assert_eq!(
        ty(
            "",
            "fold_right (fun (v:int) (acc:int) => v - acc) (1, 2, 3, 4) 0"
        ),
        "int"
    );
    assert_eq!(ty("", "transpose ((1, 2), (3, 4), (5, 6))"), "int ^ 3 ^ 2");
    assert_eq!(
        ty("", "transpose ((1, 2, 3, 4, 5, 6) :>> int ^ (2 \\* 3))"),
        "int ^ (3 \\* 2)"
    );
}

#[test]
fn static_error_codes() {
    assert_eq!(codes("var x = 1;\nvar x = 2;"), vec!["E0202"]);
    assert_eq!(codes("println$ nothing_here;"), vec!["E0201"]);
    assert_eq!(codes("var a : int ^ (3 * 2);"), vec!["E0401"]);
    assert_eq!(codes("var v = `5:3;"), vec!["E0402"]);
    assert_eq!(codes("var a = 1, 2, 3;\nprintln$ a.5;"), vec!["E0403"]);
    assert_eq!(
        codes("var c = `1:3 \\, `1:2;\nprintln$ caseno c;"),
        vec!["E0404"]
    );
    assert_eq!(
        codes("var p : (int * double) ^ 2 = ((1, 1.5), (2, 2.5));\nvar q = p :>> int ^ 4;"),
        vec!["E0500"]
    );
    assert_eq!(codes("var c = (`1:3, `1:2) :>> int;"), vec!["E0501"]);
    assert_eq!(
        codes("var c = `1:3 \\, `1:2;\nvar f = c :>> 5;"),
        vec!["E0502"]
    );
    assert_eq!(codes("var b = 2147483648;"), vec!["E0601"]);
    assert_eq!(codes("var x = 1, 2, 3;\nx.2 = 30;"), vec!["E0701"]);
    assert_eq!(codes("var a : int8 = 5;"), vec!["E0301"]);
    assert_eq!(codes("fun f[T] () => 1;\nprintln$ f ();"), vec!["E0302"]);
    assert_eq!(
        codes("var x = 1;\nif x > 0 then println \"pos\"; endif"),
        vec!["E0101"]
    );
}

#[test]
fn hoisting_and_scopes() {
    assert!(codes("println$ twice 21;\nfun twice (x:int) => 2 * x;").is_empty());
    assert!(codes("fun plus_g (x:int) => x + g;\nvar g = 100;\nprintln$ plus_g 5;").is_empty());
    assert!(codes("var x = 1;\nbegin var x = 2; println x; end").is_empty());
    // A range loop's variable may be reused, as in Felix, and a `var` of its name may follow.
    assert!(
        codes("for i in 0 ..< 3 do print i; done\nfor i in 0 ..< 2 do print i; done").is_empty()
    );
    assert!(codes("for i in 0 ..< 3 do print i; done\nvar i = 10;\nprintln i;").is_empty());
    assert_eq!(codes("var x = 1;\nvar x = 2;"), vec!["E0202"]);
}

/// A checker with the prelude loaded.
fn prelude_checker() -> Checker {
    let mut c = Checker::new();
    let (stmts, errors) = syntax::parse_program(crate::PRELUDE);
    assert!(errors.is_empty());
    c.check_program(&stmts).expect("prelude checks");
    c
}

#[test]
fn every_scheme_of_the_primitive_table_resolves() {
    let mut c = prelude_checker();
    for (index, def) in crate::core::prims::PRIMS.iter().enumerate() {
        let schemes = c
            .prim_schemes(index)
            .unwrap_or_else(|e| panic!("{}: {e}", def.name));
        assert_eq!(schemes.len(), def.schemes.len(), "{}", def.name);
        assert!(
            !def.description().is_empty(),
            "{} has no documentation",
            def.name
        );
    }
}

#[test]
fn primitive_names_are_unique() {
    let names: Vec<&str> = crate::core::prims::PRIMS
        .iter()
        .flat_map(|p| p.names())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), names.len());
}

/// Every classification of `e :>> T` comes from a table entry: the checker's choice for a
/// pair of types is the one the validator accepts, and no other kind passes for that pair.
#[test]
fn coercions_are_classified_by_the_table() {
    use crate::core::ir::CoerceKind::*;
    let mut c = prelude_checker();
    let resolve = |c: &mut Checker, text: &str| {
        let t = syntax::parse_type(text).unwrap_or_else(|e| panic!("{text}: {e:?}"));
        c.resolve_type(&t)
            .unwrap_or_else(|e| panic!("{text}: {e:?}"))
    };
    let all = [
        EncodeInt,
        EncodeNatural,
        EncodeString,
        DecodeInt,
        DecodeNatural,
        DecodeString,
        Reinterpret,
        Reshape,
        IntToNatural,
        NaturalToInt,
        NaturalToString,
        Opaque,
    ];
    let cases = [
        ("int", "2 \\* 3", DecodeInt),
        ("uint8", "bool", DecodeInt),
        ("natural", "6", DecodeNatural),
        ("string", "2 \\* 3", DecodeString),
        ("2 \\* 3", "6", Reinterpret),
        ("2 \\* 3", "int", EncodeInt),
        ("bool \\* bool", "natural", EncodeNatural),
        ("3", "string", EncodeString),
        ("int", "natural", IntToNatural),
        ("natural", "long", NaturalToInt),
        ("natural", "string", NaturalToString),
        ("int ^ 6", "int ^ (2 \\* 3)", Reshape),
        ("double ^ 2 ^ 3", "double ^ (3 \\* 2)", Reshape),
    ];
    let mut covered = std::collections::HashSet::new();
    for (from, to, kind) in cases {
        let (s, t) = (resolve(&mut c, from), resolve(&mut c, to));
        assert_eq!(c.check_coercion(kind, &s, &t), Ok(()), "{from} :>> {to}");
        for other in all.iter().filter(|k| **k != kind) {
            assert!(
                c.check_coercion(*other, &s, &t).is_err(),
                "{from} :>> {to} also admits {other:?}"
            );
        }
        covered.insert(format!("{kind:?}"));
    }
    // The opaque coercion is inserted by `_make_K` / `_repr_`, never by `:>>`.
    assert_eq!(covered.len(), all.len() - 1);
    // The refusals are the entries' own errors.
    assert_eq!(codes("val x = (true \\, false) :>> 3;"), ["E0502"]);
    assert_eq!(codes("val x = \"1\" :>> int;"), ["E0501"]);
    assert_eq!(codes("val x = (1, 2, 3) :>> int ^ 4;"), ["E0500"]);
    assert_eq!(
        codes("val x = 7 :>> uint16; val y = 1uz :>> int8;"),
        Vec::<&str>::new()
    );
}

/// `:doc :>>` shows every classification of the coercion, with its schemes.
#[test]
fn the_doc_of_the_coercion_lists_its_classifications() {
    let doc = crate::core::doc::prim_doc(":>>").expect(":>> is documented");
    for word in [
        ":>> decode : [I:integer, C:COMPACTLINEAR] I -> C",
        ":>> reinterpret :",
        ":>> encode :",
        ":>> natural :",
        ":>> integer :",
        ":>> reshape : [A, B] A -> B",
    ] {
        assert!(doc.contains(word), "{word} missing from\n{doc}");
    }
}

#[test]
fn errors_after_a_failed_expression_do_not_cascade() {
    // The argument's type contains the error type of `nope`: no E0301 about it, and so no
    // internal type in a message.
    assert_eq!(
        codes("fun id (p:(a:int)) => p;\nprintln$ id (a=1, b=nope), rev (1, nope);"),
        vec!["E0201", "E0201"]
    );
}

#[test]
fn a_function_that_can_end_without_return_is_e0304() {
    assert_eq!(
        codes("fun f (x:int) : int = { if x > 0 return 1; }"),
        vec!["E0304"]
    );
    assert_eq!(
        codes("fun f (x:int) = { if x > 0 return 1; }"),
        vec!["E0304"]
    );
    assert_eq!(
        codes("fun f (x:int) : int = { L: while true do break L; done }"),
        vec!["E0304"]
    );
    assert_eq!(
        codes("fun f (x:int) : int = { while true do if x > 0 return 1; done }"),
        Vec::<&str>::new()
    );
    assert_eq!(
        codes("fun f (x:int) : int = { if x > 0 do return 1; else return 0; done }"),
        Vec::<&str>::new()
    );
    assert_eq!(
        codes("proc p (x:int) { if x > 0 return; }"),
        Vec::<&str>::new()
    );
}
