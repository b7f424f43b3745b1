use super::*;
use crate::eval::value::{Buffer, Scalars};
use crate::types::ty::NominalDef;
use num_bigint::BigUint;
use std::sync::Arc;

fn int(i: i64) -> Value {
    Value::Int(i)
}

fn string(text: &str) -> Value {
    Value::str(text.as_bytes())
}

fn tuple(values: Vec<Value>) -> Value {
    Value::Tuple(Arc::from(values))
}

fn sum(tag: u32, argument: Value) -> Value {
    Value::sum(tag, ArgForm::Tuple, argument)
}

fn ints(values: &[i64]) -> Value {
    Value::Array(ArrayVal::new(Buffer::Scalars(Scalars::I64(
        values.to_vec(),
    ))))
}

fn doubles(values: &[f64]) -> Value {
    Value::Array(ArrayVal::new(Buffer::Scalars(Scalars::F64(
        values.to_vec(),
    ))))
}

fn boxed(values: Vec<Value>) -> Value {
    Value::Array(ArrayVal::new(Buffer::Boxed(values.into())))
}

fn strings(texts: &[&str]) -> Value {
    boxed(texts.iter().map(|text| string(text)).collect())
}

fn big(decimal: &str) -> Value {
    Value::Big(Arc::new(decimal.parse::<BigUint>().unwrap()))
}

fn unitsum(n: u64) -> Type {
    Type::Unitsum(n)
}

fn array(element: Type, n: u64) -> Type {
    Type::array(element, unitsum(n))
}

fn tuple_ty(components: Vec<Type>) -> Type {
    Type::tuple(components)
}

fn integer(int_ty: IntTy) -> Type {
    Type::Int(int_ty)
}

fn nominal(id: u32, name: &str, body: NominalBody) -> Type {
    let definition = NominalDef::new(id, Arc::from(name), Vec::new());
    assert!(definition.set_body(body));
    Type::Nominal(Arc::new(definition))
}

fn struct_ty(id: u32, name: &str, fields: &[(&str, Type)]) -> Type {
    let fields = fields
        .iter()
        .map(|(field, ty)| (Arc::from(*field), ty.clone()))
        .collect();
    nominal(id, name, NominalBody::Struct(fields))
}

fn variant_ty(id: u32, name: &str, constructors: &[(&str, Option<Type>)]) -> Type {
    let constructors = constructors
        .iter()
        .map(|(constructor, ty)| (Arc::from(*constructor), ty.clone()))
        .collect();
    nominal(id, name, NominalBody::Variant(constructors))
}

/// Check all three forms of one value.
fn check(v: &Value, ty: &Type, str_form: &str, repr_form: &str, strr_form: &str) {
    assert_eq!(str_value(v, ty), str_form, "str of {v:?} : {ty:?}");
    assert_eq!(repr_value(v, ty), repr_form, "repr of {v:?} : {ty:?}");
    assert_eq!(strr_value(v, ty), strr_form, "_strr of {v:?} : {ty:?}");
}

#[test]
fn doubles_follow_printf_g() {
    // Expected strings are what C's printf("%g") gives for these doubles.
    let table: &[(f64, &str)] = &[
        (1.5, "1.5"),
        (2.0, "2"),
        (1.0 / 3.0, "0.333333"),
        (1e10, "1e+10"),
        (1.5e-7, "1.5e-07"),
        (123456789.0, "1.23457e+08"),
        (100000.0, "100000"),
        (1e6, "1e+06"),
        (0.0001, "0.0001"),
        (1e-5, "1e-05"),
        (-0.0, "-0"),
        (0.0, "0"),
        (999999.5, "1e+06"),
        (999999.4, "999999"),
        (9.999995e-05, "0.0001"),
        (9.9999951e-05, "0.0001"),
        (1e100, "1e+100"),
        (5e-324, "4.94066e-324"),
        (123456.5, "123456"),
        (1000005.0, "1e+06"),
        (-2.5, "-2.5"),
        (1.65, "1.65"),
        (0.1, "0.1"),
        (100.0 / 3.0, "33.3333"),
        (1234567.0, "1.23457e+06"),
        (0.000123456789, "0.000123457"),
        (16777216.0, "1.67772e+07"),
        (1e-300, "1e-300"),
        (f64::MAX, "1.79769e+308"),
        (0.5, "0.5"),
        (99999.95, "99999.9"),
        (9.9999949, "9.99999"),
        (-1e-10, "-1e-10"),
        (2.5e15, "2.5e+15"),
        (1.234e-05, "1.234e-05"),
        (100.0, "100"),
        (1e21, "1e+21"),
        (12.0, "12"),
        (3.25, "3.25"),
        (-123.456, "-123.456"),
        (0.001, "0.001"),
        (7.0, "7"),
    ];
    for &(x, expected) in table {
        assert_eq!(format_double(x), expected, "format_double({x:e})");
    }
}

#[test]
fn special_doubles_and_floats() {
    assert_eq!(format_double(f64::INFINITY), "+inf");
    assert_eq!(format_double(f64::NEG_INFINITY), "-inf");
    assert_eq!(format_double(f64::NAN), "nan");
    assert_eq!(format_float(1.1f32), "1.1");
    assert_eq!(format_float(16777217.0f32), "1.67772e+07");
    assert_eq!(format_float(0.1f32), "0.1");
    assert_eq!(format_float(-0.0f32), "-0");
    assert_eq!(format_float(f32::INFINITY), "+inf");
    // A float value is kept rounded to f32 in a `Value::Float`.
    check(
        &Value::Float(f64::from(2.5f32)),
        &Type::Float,
        "2.5",
        "2.5",
        "2.5",
    );
    check(&Value::Float(2.0), &Type::Double, "2", "2", "2");
}

#[test]
fn integers_with_and_without_suffixes() {
    check(&int(42), &Type::INT, "42", "42", "42");
    check(&int(-5), &Type::INT, "-5", "-5", "-5");
    check(&int(5), &Type::SIZE, "5", "5uz", "5uz");
    check(&int(7), &integer(IntTy::Long), "7", "7l", "7l");
    check(&int(7), &integer(IntTy::UInt), "7", "7u", "7u");
    check(&int(7), &integer(IntTy::ULong), "7", "7ul", "7ul");
    check(&int(7), &integer(IntTy::VLong), "7", "7v", "7v");
    check(&int(7), &integer(IntTy::UVLong), "7", "7uv", "7uv");
    check(&int(7), &integer(IntTy::I8), "7", "7i8", "7i8");
    check(&int(-7), &integer(IntTy::I16), "-7", "-7i16", "-7i16");
    check(&int(7), &integer(IntTy::I32), "7", "7i32", "7i32");
    check(&int(7), &integer(IntTy::I64), "7", "7i64", "7i64");
    check(&int(255), &integer(IntTy::U8), "255", "255u8", "255u8");
    check(&int(7), &integer(IntTy::U16), "7", "7u16", "7u16");
    check(&int(7), &integer(IntTy::U32), "7", "7u32", "7u32");
    check(&int(7), &integer(IntTy::U64), "7", "7u64", "7u64");
    // Unsigned 64-bit values are stored as bit patterns.
    let max = u64::MAX.to_string();
    check(
        &int(-1),
        &integer(IntTy::U64),
        &max,
        &format!("{max}u64"),
        &format!("{max}u64"),
    );
    check(
        &int(i64::MIN),
        &Type::SIZE,
        "9223372036854775808",
        "9223372036854775808uz",
        "9223372036854775808uz",
    );
    check(
        &int(i64::MIN),
        &integer(IntTy::Long),
        "-9223372036854775808",
        "-9223372036854775808l",
        "-9223372036854775808l",
    );
}

#[test]
fn strings_chars_bools_unit_naturals() {
    check(
        &string("it's"),
        &Type::String,
        "it's",
        "'it\\'s'",
        "'it\\'s'",
    );
    check(
        &string("a\tb\nc\rd\x0ce\x0bf\\g\"h"),
        &Type::String,
        "a\tb\nc\rd\x0ce\x0bf\\g\"h",
        "'a\\tb\\nc\\rd\\fe\\vf\\g\"h'",
        "'a\\tb\\nc\\rd\\fe\\vf\\g\"h'",
    );
    check(&string(""), &Type::String, "", "''", "''");
    check(&int(b'x' as i64), &Type::Char, "x", "x", "x");
    check(&int(b'\'' as i64), &Type::Char, "'", "\\'", "\\'");
    check(&int(b'\n' as i64), &Type::Char, "\n", "\\n", "\\n");
    check(&Value::bool(true), &Type::BOOL, "true", "true", "true");
    check(&Value::bool(false), &Type::BOOL, "false", "false", "false");
    check(&Value::Unit, &Type::UNIT, "()", "()", "()");
    let huge = "1267650600228229401496703205376";
    check(&big(huge), &Type::Natural, huge, huge, huge);
    check(&int(12), &Type::Natural, "12", "12", "12");
}

#[test]
fn non_utf8_bytes_are_kept_exactly() {
    let bytes = [b'a', 0xff, b'b'];
    assert_eq!(
        str_value_bytes(&Value::str(&bytes), &Type::String),
        bytes.to_vec()
    );
    assert_eq!(
        strr_value_bytes(&Value::str(&bytes), &Type::String),
        b"'a\xffb'".to_vec()
    );
    assert_eq!(repr_value_bytes(&int(0xe9), &Type::Char), b"\xe9".to_vec());
    assert_eq!(str_value(&Value::str(&bytes), &Type::String), "a\u{fffd}b");
}

#[test]
fn tuples_conformance_print_str() {
    let int_string_double = tuple_ty(vec![Type::INT, Type::String, Type::Double]);
    let value = tuple(vec![int(1), string("a"), Value::Float(2.5)]);
    check(
        &value,
        &int_string_double,
        "(1, a, 2.5)",
        "(1, a, 2.5)",
        "(1,'a',2.5)",
    );

    let inner = tuple_ty(vec![Type::INT, Type::String]);
    let nested_ty = tuple_ty(vec![Type::INT, inner.clone()]);
    let nested = tuple(vec![int(1), tuple(vec![int(2), string("x")])]);
    check(
        &nested,
        &nested_ty,
        "(1, (2, x))",
        "(1, (2, x))",
        "(1,(2,'x'))",
    );

    let string_int = tuple_ty(vec![Type::String, Type::INT]);
    assert_eq!(
        str_value(&tuple(vec![string("a"), int(1)]), &string_int),
        "(a, 1)"
    );

    let pair_then_double = tuple_ty(vec![inner.clone(), Type::Double]);
    let value = tuple(vec![tuple(vec![int(1), string("a")]), Value::Float(2.5)]);
    assert_eq!(str_value(&value, &pair_then_double), "((1, a), 2.5)");

    let int_pair = array(Type::INT, 2);
    assert_eq!(str_value(&ints(&[1, 2]), &int_pair), "(1, 2)");
    assert_eq!(str_value(&ints(&[-5, 0]), &int_pair), "(-5, 0)");
    let int_double = tuple_ty(vec![Type::INT, Type::Double]);
    assert_eq!(
        str_value(&tuple(vec![int(1), Value::Float(2.5)]), &int_double),
        "(1, 2.5)"
    );
    assert_eq!(
        str_value(&tuple(vec![int(1), string("p")]), &inner),
        "(1, p)"
    );

    let size_string = tuple_ty(vec![Type::SIZE, Type::String]);
    assert_eq!(
        str_value(&tuple(vec![int(1), string("z")]), &size_string),
        "(1, z)"
    );

    let string_triple = tuple_ty(vec![Type::String, array(Type::INT, 3)]);
    let value = tuple(vec![string("x"), ints(&[1, 2, 3])]);
    assert_eq!(str_value(&value, &string_triple), "(x, (1, 2, 3))");

    let bool_int = tuple_ty(vec![Type::BOOL, Type::INT]);
    assert_eq!(
        str_value(&tuple(vec![Value::bool(true), int(5)]), &bool_int),
        "(true, 5)"
    );
}

#[test]
fn tuple_with_homogeneous_tail_prints_it_as_an_array() {
    let double_then_ints = tuple_ty(vec![Type::Double, Type::INT, Type::INT, Type::INT]);
    let value = tuple(vec![Value::Float(1.5), int(2), int(3), int(4)]);
    assert_eq!(str_value(&value, &double_then_ints), "(1.5, (2, 3, 4))");
    let string_then_sizes = tuple_ty(vec![Type::String, Type::SIZE, Type::SIZE, Type::SIZE]);
    let value = tuple(vec![string("a"), int(3), int(3), int(7)]);
    assert_eq!(
        str_value(&value, &string_then_sizes),
        "(a, (3uz, 3uz, 7uz))"
    );
    let mixed = tuple_ty(vec![
        Type::INT,
        Type::String,
        Type::INT,
        Type::INT,
        Type::INT,
    ]);
    let value = tuple(vec![int(1), string("a"), int(2), int(3), int(4)]);
    assert_eq!(str_value(&value, &mixed), "(1, a, (2, 3, 4))");
    let pair_tail = tuple_ty(vec![Type::Double, Type::INT, Type::INT]);
    let value = tuple(vec![Value::Float(1.5), int(2), int(3)]);
    assert_eq!(str_value(&value, &pair_tail), "(1.5, 2, 3)");
}

#[test]
fn tuples_conformance_print_strr() {
    let strings_of_suffixes = array(Type::String, 4);
    let value = strings(&["5uz", "7l", "7u", "7ul"]);
    assert_eq!(
        str_value(&value, &strings_of_suffixes),
        "('5uz', '7l', '7u', '7ul')"
    );
    assert_eq!(
        str_value(&strings(&["7i8", "7u64"]), &array(Type::String, 2)),
        "(7i8, 7u64)"
    );
    let bool_unit = tuple_ty(vec![Type::String, Type::String]);
    assert_eq!(
        str_value(&strings(&["true", "()"]), &bool_unit),
        "(true, ())"
    );
    let true_unit = tuple_ty(vec![Type::BOOL, Type::UNIT]);
    check(
        &tuple(vec![Value::bool(true), Value::Unit]),
        &true_unit,
        "(true, ())",
        "(true, ())",
        "(true,())",
    );

    let matrix = array(array(Type::INT, 2), 3);
    assert_eq!(
        strr_value(&ints(&[1, 2, 3, 4, 5, 6]), &matrix),
        "((1,2),(3,4),(5,6))"
    );
    assert_eq!(
        strr_value(&strings(&["a", "b", "c"]), &array(Type::String, 3)),
        "('a','b','c')"
    );
    assert_eq!(
        strr_value(&doubles(&[1.5, 2.0]), &array(Type::Double, 2)),
        "(1.5,2)"
    );

    // A tuple whose first component is an array.
    let first_array = tuple_ty(vec![array(Type::INT, 3), Type::String, Type::String]);
    let value = tuple(vec![ints(&[1, 2, 3]), string("a"), string("b")]);
    check(
        &value,
        &first_array,
        "((1, 2, 3), a, b)",
        "((1, 2, 3), a, b)",
        "((1,2,3),'a','b')",
    );
}

#[test]
fn arrays_conformance_print_arrays() {
    check(
        &strings(&["a", "b"]),
        &array(Type::String, 2),
        "(a, b)",
        "(a, b)",
        "('a','b')",
    );
    check(
        &strings(&["a", "b", "c"]),
        &array(Type::String, 3),
        "('a', 'b', 'c')",
        "('a', 'b', 'c')",
        "('a','b','c')",
    );
    check(
        &ints(&[1, 2]),
        &array(Type::SIZE, 2),
        "(1, 2)",
        "(1, 2)",
        "(1uz,2uz)",
    );
    check(
        &ints(&[1, 2, 3]),
        &array(Type::SIZE, 3),
        "(1uz, 2uz, 3uz)",
        "(1uz, 2uz, 3uz)",
        "(1uz,2uz,3uz)",
    );
    let longs = array(integer(IntTy::Long), 3);
    assert_eq!(str_value(&ints(&[1, 2, 3]), &longs), "(1l, 2l, 3l)");
    check(
        &doubles(&[1.5, 2.0, 3.25]),
        &array(Type::Double, 3),
        "(1.5, 2, 3.25)",
        "(1.5, 2, 3.25)",
        "(1.5,2,3.25)",
    );
    let rows = array(array(Type::INT, 2), 3);
    check(
        &ints(&[1, 2, 3, 4, 5, 6]),
        &rows,
        "((1, 2), (3, 4), (5, 6))",
        "((1, 2), (3, 4), (5, 6))",
        "((1,2),(3,4),(5,6))",
    );
    let letters = array(array(Type::String, 3), 2);
    check(
        &strings(&["a", "b", "c", "d", "e", "f"]),
        &letters,
        "(('a', 'b', 'c'), ('d', 'e', 'f'))",
        "(('a', 'b', 'c'), ('d', 'e', 'f'))",
        "(('a','b','c'),('d','e','f'))",
    );
    assert_eq!(
        str_value(&ints(&[4, 3, 2, 1]), &array(Type::INT, 4)),
        "(4, 3, 2, 1)"
    );
    let bools = array(Type::BOOL, 3);
    check(
        &ints(&[1, 0, 1]),
        &bools,
        "(true, false, true)",
        "(true, false, true)",
        "(true,false,true)",
    );
    let two_triples = array(array(Type::INT, 3), 2);
    assert_eq!(
        str_value(&ints(&[1, 2, 3, 4, 5, 6]), &two_triples),
        "((1, 2, 3), (4, 5, 6))"
    );
    let words = strings(&["one", "other", "other"]);
    assert_eq!(
        str_value(&words, &array(Type::String, 3)),
        "('one', 'other', 'other')"
    );
}

#[test]
fn arrays_with_compact_indices_print_flat() {
    let matrix = Type::array(Type::INT, Type::cproduct(vec![unitsum(3), unitsum(2)]));
    let value = ints(&[0, 1, 10, 11, 20, 21]);
    check(
        &value,
        &matrix,
        "(0, 1, 10, 11, 20, 21)",
        "(0, 1, 10, 11, 20, 21)",
        "(0,1,10,11,20,21)",
    );
    let nested = array(array(Type::INT, 2), 3);
    assert_eq!(strr_value(&value, &nested), "((0,1),(10,11),(20,21))");
    // An index that is exactly bool is the unitsum 2: a pair.
    let by_bool = Type::array(Type::String, Type::BOOL);
    assert_eq!(str_value(&strings(&["x", "y"]), &by_bool), "(x, y)");
    // An index of size 2 that is not the unitsum 2 is not a pair.
    let by_sum = Type::array(Type::String, Type::csum(vec![unitsum(1), unitsum(1)]));
    assert_eq!(str_value(&strings(&["x", "y"]), &by_sum), "('x', 'y')");
    // A matrix of pairs, over a compact sum index.
    let rows = Type::array(
        array(Type::INT, 2),
        Type::csum(vec![unitsum(2), unitsum(1)]),
    );
    assert_eq!(str_value(&value, &rows), "((0, 1), (10, 11), (20, 21))");
}

#[test]
fn empty_arrays_views_and_cells() {
    let empty_index = Type::cproduct(vec![unitsum(0), unitsum(3)]);
    let empty = Type::array(Type::INT, empty_index);
    check(&ints(&[]), &empty, "()", "()", "()");
    // A view into the middle of a shared buffer (the second row of a 3 x 2 matrix).
    let Value::Array(whole) = ints(&[1, 2, 3, 4, 5, 6]) else {
        unreachable!()
    };
    let row = Value::Array(whole.slice(2, 2));
    assert_eq!(str_value(&row, &array(Type::INT, 2)), "(3, 4)");
    let rows = Value::Array(whole.slice(2, 4));
    assert_eq!(
        strr_value(&rows, &array(array(Type::INT, 2), 2)),
        "((3,4),(5,6))"
    );
    let cell = Value::Cell(crate::eval::value::new_cell(int(3)));
    check(&cell, &Type::SIZE, "3", "3uz", "3uz");
    // Arrays of tuples keep one boxed leaf per element.
    let pairs = boxed(vec![
        tuple(vec![int(1), string("a")]),
        tuple(vec![int(2), string("b")]),
    ]);
    let element = tuple_ty(vec![Type::INT, Type::String]);
    check(
        &pairs,
        &array(element.clone(), 2),
        "((1, a), (2, b))",
        "((1, a), (2, b))",
        "((1,'a'),(2,'b'))",
    );
    let triple = boxed(vec![
        tuple(vec![int(1), string("a")]),
        tuple(vec![int(2), string("b")]),
        tuple(vec![int(3), string("c")]),
    ]);
    assert_eq!(
        str_value(&triple, &array(element, 3)),
        "((1, a), (2, b), (3, c))"
    );
    let units = boxed(vec![Value::Unit, Value::Unit, Value::Unit]);
    check(
        &units,
        &array(Type::UNIT, 3),
        "((), (), ())",
        "((), (), ())",
        "((),(),())",
    );
}

#[test]
fn compact_values_conformance_strr_compact() {
    // `2:3 \, (true \, (`1:3 \, (`3:5 \, `7:8))) has code 2·240 + 1·120 + 1·40 + 3·8 + 7.
    let innermost = Type::cproduct(vec![unitsum(5), unitsum(8)]);
    let third = Type::cproduct(vec![unitsum(3), innermost]);
    let second = Type::cproduct(vec![Type::BOOL, third]);
    let whole = Type::cproduct(vec![unitsum(3), second]);
    let expected = "(case 2 of 3,(true,(case 1 of 3,(case 3 of 5,case 7 of 8))))";
    check(&int(671), &whole, expected, expected, expected);

    let arr = array(unitsum(3), 4);
    let value = ints(&[0, 2, 1, 2]);
    assert_eq!(
        strr_value(&value, &arr),
        "(case 0 of 3,case 2 of 3,case 1 of 3,case 2 of 3)"
    );
    assert_eq!(
        str_value(&value, &arr),
        "(case 0 of 3, case 2 of 3, case 1 of 3, case 2 of 3)"
    );

    let pairs = array(Type::cproduct(vec![unitsum(3), unitsum(2)]), 2);
    let value = ints(&[2, 5]);
    assert_eq!(
        strr_value(&value, &pairs),
        "((case 1 of 3,false),(case 2 of 3,true))"
    );
    assert_eq!(
        str_value(&value, &pairs),
        "((case 1 of 3,false), (case 2 of 3,true))"
    );

    let two_unitsums = tuple_ty(vec![unitsum(3), unitsum(4)]);
    let value = tuple(vec![int(1), int(2)]);
    check(
        &value,
        &two_unitsums,
        "(case 1 of 3, case 2 of 4)",
        "(case 1 of 3, case 2 of 4)",
        "(case 1 of 3,case 2 of 4)",
    );
}

#[test]
fn compact_values_from_the_spec() {
    // Nested exactly as built.
    let nested = Type::cproduct(vec![
        Type::cproduct(vec![unitsum(3), unitsum(2)]),
        unitsum(4),
    ]);
    assert_eq!(
        strr_value(&int(23), &nested),
        "((case 2 of 3,true),case 3 of 4)"
    );
    // `1:3 \, `2:3 is a compact array with code 5.
    let compact_array = Type::cproduct(vec![unitsum(3), unitsum(3)]);
    assert_eq!(compact_array, Type::carray(unitsum(3), unitsum(2)));
    assert_eq!(
        strr_value(&int(5), &compact_array),
        "(case 1 of 3,case 2 of 3)"
    );
    // A compact product: its components, leftmost most significant.
    let three_by_two = Type::cproduct(vec![unitsum(3), unitsum(2)]);
    assert_eq!(strr_value(&int(5), &three_by_two), "(case 2 of 3,true)");
    let two_by_three = Type::cproduct(vec![unitsum(2), unitsum(3)]);
    assert_eq!(strr_value(&int(3), &two_by_three), "(true,case 0 of 3)");
    // A compact array over a compact index prints its components flat, in code order.
    let square = Type::carray(unitsum(2), Type::cproduct(vec![unitsum(2), unitsum(2)]));
    assert_eq!(strr_value(&int(0b0110), &square), "(false,true,true,false)");
    // Unitsums: `case k of n`; unit inside a compact product prints `()`.
    check(
        &int(1),
        &unitsum(3),
        "case 1 of 3",
        "case 1 of 3",
        "case 1 of 3",
    );
    let with_unit = Type::cproduct(vec![unitsum(3), Type::carray(Type::UNIT, unitsum(2))]);
    assert_eq!(strr_value(&int(2), &with_unit), "(case 2 of 3,((),()))");
    // As in beyond/str_everything.flx.
    let unitsum_int = tuple_ty(vec![unitsum(3), Type::INT]);
    assert_eq!(
        str_value(&tuple(vec![int(1), int(5)]), &unitsum_int),
        "(case 1 of 3, 5)"
    );
    let three = array(unitsum(3), 3);
    assert_eq!(
        str_value(&ints(&[0, 2, 1]), &three),
        "(case 0 of 3, case 2 of 3, case 1 of 3)"
    );
    let built = Type::cproduct(vec![unitsum(3), Type::BOOL]);
    assert_eq!(str_value(&int(3), &built), "(case 1 of 3,true)");
    // The str of a unitsum is its _strr; appending "!" happens elsewhere.
    assert_eq!(str_value(&int(1), &unitsum(3)) + "!", "case 1 of 3!");
}

#[test]
fn big_compact_codes() {
    // 1000000007 \* 1000000009 \* 1000000021: code of (1, 2, 3).
    let primes = Type::cproduct(vec![
        unitsum(1000000007),
        unitsum(1000000009),
        unitsum(1000000021),
    ]);
    let code = BigUint::from(1000000009u64) * BigUint::from(1000000021u64)
        + BigUint::from(2u32) * BigUint::from(1000000021u64)
        + BigUint::from(3u32);
    let value = Value::Big(Arc::new(code));
    assert_eq!(
        strr_value(&value, &primes),
        "(case 1 of 1000000007,case 2 of 1000000009,case 3 of 1000000021)"
    );
    // 2 \^ 100 with code 2^99 + 1: first and last components are true.
    let bits = Type::carray(Type::BOOL, unitsum(100));
    let code = (BigUint::from(1u32) << 99usize) + BigUint::from(1u32);
    let text = strr_value(&Value::Big(Arc::new(code)), &bits);
    assert!(text.starts_with("(true,false,false,"), "{text}");
    assert!(text.ends_with(",false,true)"), "{text}");
    assert_eq!(text.matches("true").count(), 2);
    assert_eq!(text.matches("false").count(), 98);
    // A compact array with more components than `product_digits` handles.
    let many_bits = Type::carray(Type::BOOL, unitsum(70000));
    let text = strr_value(&big("1"), &many_bits);
    assert_eq!(text.matches(',').count(), 69999);
    assert!(text.starts_with("(false,false,"));
    assert!(text.ends_with(",false,true)"));
    // A 64-bit code that uses the top bit (stored as a negative bit pattern).
    let wide = Type::carray(unitsum(2), unitsum(64));
    let text = strr_value(&int(i64::MIN), &wide);
    assert!(text.starts_with("(true,false,"));
    assert!(text.ends_with(",false)"));
}

#[test]
fn compact_sums_conformance_strr_compact_sum() {
    let three_or_two = Type::csum(vec![unitsum(3), unitsum(2)]);
    check(
        &int(2),
        &three_or_two,
        "case 0 (case 2 of 3)",
        "case 0 (case 2 of 3)",
        "case 0 (case 2 of 3)",
    );
    assert_eq!(strr_value(&int(4), &three_or_two), "case 1 (true)");
    assert_eq!(str_value(&int(3), &three_or_two), "case 1 (false)");
    let with_unit = Type::csum(vec![unitsum(2), unitsum(1)]);
    assert_eq!(strr_value(&int(2), &with_unit), "case 1 ()");
    let tuple_or_unit = Type::csum(vec![
        Type::cproduct(vec![unitsum(3), unitsum(2)]),
        unitsum(1),
    ]);
    assert_eq!(
        strr_value(&int(3), &tuple_or_unit),
        "case 0 (case 1 of 3,true)"
    );
    assert_eq!(strr_value(&int(6), &tuple_or_unit), "case 1 ()");
    let nested = Type::csum(vec![unitsum(2), Type::csum(vec![unitsum(3), unitsum(1)])]);
    assert_eq!(
        strr_value(&int(4), &nested),
        "case 1 (case 0 (case 2 of 3))"
    );
    assert_eq!(strr_value(&int(5), &nested), "case 1 (case 1 ())");
    // Documented choices: a compact-array argument keeps the extra parentheses, and a
    // repeated compact sum always adds them.
    let array_or_unit = Type::csum(vec![Type::carray(unitsum(3), unitsum(2)), unitsum(1)]);
    assert_eq!(
        strr_value(&int(5), &array_or_unit),
        "case 0 ((case 1 of 3,case 2 of 3))"
    );
    let product = Type::cproduct(vec![unitsum(3), unitsum(2)]);
    let repeated = Type::csum(vec![product.clone(), product]);
    assert_eq!(
        strr_value(&int(9), &repeated),
        "case 1 ((case 1 of 3,true))"
    );
    // Inside a tuple, `str` puts ", " between components.
    let pair = tuple_ty(vec![three_or_two, Type::INT]);
    assert_eq!(
        str_value(&tuple(vec![int(4), int(5)]), &pair),
        "(case 1 (true), 5)"
    );
}

#[test]
fn plain_sums_conformance_plain_sum() {
    let int_or_string = Type::sum(vec![Type::INT, Type::String]);
    let value = sum(1, string("hello"));
    check(
        &value,
        &int_or_string,
        "case 1 ('hello')",
        "case 1 ('hello')",
        "case 1 ('hello')",
    );
    assert_eq!(
        str_value(&sum(1, string("hi")), &int_or_string),
        "case 1 ('hi')"
    );
    let maybe = Type::sum(vec![Type::INT, Type::UNIT]);
    assert_eq!(strr_value(&sum(0, int(5)), &maybe), "case 0 (5)");
    assert_eq!(strr_value(&sum(1, Value::Unit), &maybe), "case 1 ()");
    let pair_or_double = Type::sum(vec![tuple_ty(vec![Type::INT, Type::String]), Type::Double]);
    let value = sum(0, tuple(vec![int(1), string("a")]));
    assert_eq!(strr_value(&value, &pair_or_double), "case 0 (1,'a')");
    assert_eq!(
        strr_value(&sum(1, Value::Float(2.5)), &pair_or_double),
        "case 1 (2.5)"
    );
    let array_or_double = Type::sum(vec![tuple_ty(vec![Type::INT, Type::INT]), Type::Double]);
    assert_eq!(
        strr_value(&sum(0, ints(&[1, 2])), &array_or_double),
        "case 0 ((1,2))"
    );
    // A repeated sum always adds the parentheses.
    let pair = tuple_ty(vec![Type::INT, Type::String]);
    let repeated = Type::sum(vec![pair.clone(), pair]);
    let value = sum(1, tuple(vec![int(1), string("a")]));
    assert_eq!(strr_value(&value, &repeated), "case 1 ((1,'a'))");
    // A compact-tuple argument brings its own parentheses here too.
    let compact_or_int = Type::sum(vec![
        Type::cproduct(vec![unitsum(3), unitsum(2)]),
        Type::INT,
    ]);
    assert_eq!(
        strr_value(&sum(0, int(3)), &compact_or_int),
        "case 0 (case 1 of 3,true)"
    );
    // Nested plain sums.
    let outer = Type::sum(vec![Type::INT, int_or_string]);
    assert_eq!(
        strr_value(&sum(1, sum(0, int(7))), &outer),
        "case 1 (case 0 (7))"
    );
}

#[test]
fn structs_conformance_struct_def() {
    let point = struct_ty(1, "Point", &[("x", Type::INT), ("y", Type::INT)]);
    let value = tuple(vec![int(3), int(4)]);
    check(
        &value,
        &point,
        "Point {x=3,y=4}",
        "Point {x=3,y=4}",
        "Point {x=3,y=4}",
    );
    assert_eq!(
        strr_value(&tuple(vec![int(10), int(4)]), &point),
        "Point {x=10,y=4}"
    );
    let person = struct_ty(
        2,
        "Person",
        &[
            ("name", Type::String),
            ("age", Type::INT),
            ("height", Type::Double),
        ],
    );
    let value = tuple(vec![string("Ada"), int(36), Value::Float(1.65)]);
    assert_eq!(
        strr_value(&value, &person),
        "Person {name='Ada',age=36,height=1.65}"
    );
    let p = struct_ty(3, "P", &[("x", Type::INT), ("y", Type::String)]);
    assert_eq!(
        str_value(&tuple(vec![int(1), string("a")]), &p),
        "P {x=1,y='a'}"
    );
    // A one-field struct, stored as a one-element tuple or bare.
    let wrapper = struct_ty(4, "W", &[("n", Type::SIZE)]);
    assert_eq!(strr_value(&tuple(vec![int(2)]), &wrapper), "W {n=2uz}");
    assert_eq!(strr_value(&int(2), &wrapper), "W {n=2uz}");
    let empty = struct_ty(5, "E", &[]);
    assert_eq!(strr_value(&tuple(vec![]), &empty), "E {}");
    // Structs inside tuples and arrays.
    let pair = tuple_ty(vec![point.clone(), Type::INT]);
    let value = tuple(vec![tuple(vec![int(1), int(2)]), int(5)]);
    assert_eq!(str_value(&value, &pair), "(Point {x=1,y=2}, 5)");
    let points = boxed(vec![
        tuple(vec![int(1), int(2)]),
        tuple(vec![int(3), int(4)]),
        tuple(vec![int(5), int(6)]),
    ]);
    assert_eq!(
        str_value(&points, &array(point, 3)),
        "(Point {x=1,y=2}, Point {x=3,y=4}, Point {x=5,y=6})"
    );
}

#[test]
fn variants_conformance_variant() {
    let token = variant_ty(
        10,
        "tok",
        &[
            ("Num", Some(Type::INT)),
            ("Word", Some(Type::String)),
            ("Pair", Some(tuple_ty(vec![Type::INT, Type::String]))),
            ("End", None),
        ],
    );
    check(&sum(0, int(4)), &token, "Num (4)", "Num (4)", "Num (4)");
    assert_eq!(strr_value(&sum(1, string("hi")), &token), "Word ('hi')");
    assert_eq!(
        strr_value(&sum(2, tuple(vec![int(1), string("x")])), &token),
        "Pair (1,'x')"
    );
    assert_eq!(strr_value(&sum(3, Value::Unit), &token), "End");
    let v = variant_ty(11, "V", &[("A", Some(Type::INT)), ("B", None)]);
    assert_eq!(str_value(&sum(0, int(4)), &v), "A (4)");
    assert_eq!(str_value(&sum(1, Value::Unit), &v), "B");
    // Documented choice: an array argument keeps the extra parentheses, like plain sums.
    let shape = variant_ty(
        12,
        "shape",
        &[
            ("Circle", Some(Type::Double)),
            ("Rect", Some(array(Type::Double, 2))),
            ("Dot", None),
        ],
    );
    assert_eq!(strr_value(&sum(0, Value::Float(2.0)), &shape), "Circle (2)");
    assert_eq!(
        strr_value(&sum(1, doubles(&[1.0, 2.5])), &shape),
        "Rect ((1,2.5))"
    );
    assert_eq!(strr_value(&sum(2, Value::Unit), &shape), "Dot");
}

#[test]
fn functions_and_repl_results() {
    let function = Type::fun(Type::INT, Type::INT);
    check(&Value::Unit, &function, "<fun>", "<fun>", "<fun>");
    // REPL results use _strr.
    let value = tuple(vec![int(1), string("a"), Value::Float(2.5)]);
    assert_eq!(
        strr_value(
            &value,
            &tuple_ty(vec![Type::INT, Type::String, Type::Double])
        ),
        "(1,'a',2.5)"
    );
    assert_eq!(
        strr_value(&int(3), &Type::csum(vec![unitsum(3), unitsum(2)])),
        "case 1 (false)"
    );
}

#[test]
fn mismatches_print_a_marker_instead_of_panicking() {
    assert_eq!(str_value(&string("x"), &Type::INT), "<?>");
    assert_eq!(str_value(&int(1), &Type::String), "<?>");
    assert_eq!(str_value(&int(300), &Type::Char), "<?>");
    assert_eq!(str_value(&int(1), &Type::Double), "<?>");
    assert_eq!(str_value(&int(-1), &Type::Natural), "<?>");
    assert_eq!(strr_value(&int(3), &unitsum(3)), "<?>");
    assert_eq!(strr_value(&int(0), &Type::VOID), "<?>");
    assert_eq!(strr_value(&string("x"), &unitsum(3)), "<?>");
    assert_eq!(str_value(&ints(&[1, 2]), &array(Type::INT, 3)), "<?>");
    assert_eq!(str_value(&int(1), &array(Type::INT, 3)), "<?>");
    assert_eq!(
        str_value(
            &tuple(vec![int(1)]),
            &tuple_ty(vec![Type::INT, Type::String])
        ),
        "<?>"
    );
    let int_or_string = Type::sum(vec![Type::INT, Type::String]);
    assert_eq!(strr_value(&sum(5, int(1)), &int_or_string), "<?>");
    assert_eq!(strr_value(&int(1), &int_or_string), "<?>");
    let point = struct_ty(20, "Point", &[("x", Type::INT), ("y", Type::INT)]);
    assert_eq!(strr_value(&tuple(vec![int(1)]), &point), "<?>");
    let unset = Type::Nominal(Arc::new(NominalDef::new(
        21,
        Arc::from("Unset"),
        Vec::new(),
    )));
    assert_eq!(strr_value(&Value::Unit, &unset), "<?>");
    let unknown = Type::Meta(0);
    assert_eq!(str_value(&int(1), &unknown), "<?>");
    // A component mismatch only marks that component.
    let pair = tuple_ty(vec![Type::INT, Type::String]);
    assert_eq!(str_value(&tuple(vec![int(1), int(2)]), &pair), "(1, <?>)");
}

/// `%g` of `x` by the C library's `snprintf`, whose digits the C++ streams Felix prints with
/// are.
fn printf_g(x: f64) -> String {
    let mut buf = [0u8; 64];
    // SAFETY: the buffer's size is passed; the format takes one double.
    let n = unsafe {
        libc::snprintf(
            buf.as_mut_ptr() as *mut libc::c_char,
            buf.len(),
            c"%g".as_ptr(),
            x,
        )
    };
    String::from_utf8_lossy(&buf[..n as usize]).into_owned()
}

proptest::proptest! {
    #[test]
    fn doubles_print_as_printf_g(bits in proptest::prelude::any::<u64>()) {
        let x = f64::from_bits(bits);
        proptest::prop_assume!(x.is_finite());
        proptest::prop_assert_eq!(format_double(x), printf_g(x));
    }

    #[test]
    fn decimals_print_as_printf_g(n in -10_000_000i64..10_000_000, scale in 0i32..12) {
        let x = n as f64 / 10f64.powi(scale);
        proptest::prop_assert_eq!(format_double(x), printf_g(x));
    }
}
