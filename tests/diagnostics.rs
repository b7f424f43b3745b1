//! Snapshot tests of rendered diagnostics (no color): one small program per error code,
//! paired with what the user sees. Each case also asserts that its code appears, so a wrong
//! error fails even before the snapshots are reviewed (`cargo insta review`).

use tessera::{exit_status, render};
use tessera::{Session, Settings};

/// Run `src` as the file `test.flx` and render what went wrong, with the exit status.
fn check(expected_code: &str, src: &str) -> String {
    let mut session = Session::new(Settings::default().with_stdout(std::io::sink()));
    let rendered = match session.run_source(src) {
        Ok(()) => "no error".to_string(),
        Err(diags) => format!(
            "exit status {}\n{}",
            exit_status(&diags),
            render(&diags, "test.flx", src, false)
        ),
    };
    assert!(
        rendered.contains(&format!("[{expected_code}]")),
        "expected {expected_code} in:\n{rendered}"
    );
    rendered
}

macro_rules! diagnostic_cases {
    ($($name:ident: $code:literal, $src:expr;)*) => {
        $(
            #[test]
            fn $name() {
                insta::assert_snapshot!(check($code, $src));
            }
        )*
    };
}

diagnostic_cases! {
    newcomer_power_binds_tighter_than_product: "E0301", "var m : int ^ 3 * 2;\nprintln$ m.(`1:3 \\, `0:2);\n";
    newcomer_power_binds_tighter_than_product_store: "E0301", "var m : int ^ 3 * 2;\nfor i in ..[3] do\n  for j in ..[2] do\n    &m.(i \\, j) <- 1;\n  done\ndone\n";
    newcomer_int_loop_variables_in_a_compact_index: "E0301", "var m : int ^ (3 \\* 2);\nfor i in 0 ..< 3 do\n  for j in 0 ..< 2 do\n    println$ m.(i \\, j);\n  done\ndone\n";
    newcomer_compact_tuple_binds_tighter_than_reshape: "E0301", "var src : int ^ (3 \\* 4);\nvar i = `1:3;\nvar y = 2;\nprintln$ src.(i \\, (y - 1) :>> 4);\n";
    newcomer_println_applied_first: "E0301", "println 0.1 + 0.2 == 0.3;\n";
    newcomer_float_without_a_point: "E0201", "val x = 1e10;\nprintln$ x;\n";
    newcomer_power_operator: "E0301", "val x = 2 ** 10;\nprintln$ x;\n";
    newcomer_undefined_qualified_name: "E0201", "println$ Foo::bar 1;\n";
    newcomer_undefined_generic_no_empty_candidates: "E0201", "println$ xyz[int] 3;\n";
    newcomer_well_known_name: "E0201", "val a = (1, 2, 3);\nprintln$ length a;\n";
    newcomer_missing_semicolon: "E0100", "val a = 1\nval b = 2;\nprintln$ a + b;\n";
    newcomer_assign_to_val: "E0701", "val a = 1;\nprintln$ a;\na = 2;\n";
    e0100_syntax_error: "E0100", "var a = 1;\nvar b = ;\nprintln$ a;\n";
    e0101_if_then_statement: "E0101", "var x = 1;\nif x > 0 then println \"pos\"; endif\n";
    e0201_undefined_name: "E0201", "var x = 5;\nprintln$ undefined_thing + x;\n";
    e0202_duplicate_definition: "E0202", "var x = 1;\nvar x = 2;\nprintln x;\n";
    goto_undefined_label: "E0201", "proc p () {\n  goto fin;\n  println 1;\n}\np;\n";
    goto_duplicate_label: "E0202", "proc p () {\n  again:>\n  println 1;\n  again:>\n}\np;\n";
    goto_out_of_a_used_closure: "E0301", "proc p () {\n  val k = { goto fin; };\n  k;\n  fin:>\n}\np;\n";
    goto_out_of_a_passed_closure: "E0301", "proc run (f: 1 -> void) { f (); }\nproc p () {\n  run { goto fin; };\n  fin:>\n}\np;\n";
    alternative_missing_name: "E0301", "fun f (t: int * int) => match t with | (x, 0) | (0, y) => x | _ => 0 endmatch;\nprintln$ f (1, 0);\n";
    alternative_extra_name: "E0301", "println$ match (1, 2) with | (1, _) | (x, _) => 0 | _ => 1 endmatch;\n";
    alternative_name_types_differ: "E0301", "println$ match (1, \"a\") with | (x, \"b\") | (_, x) => 1 | _ => 0 endmatch;\n";
    nested_alternative_missing_name: "E0301", "println$ match (1, 2) with | ((1 | k), _) => k endmatch;\n";
    matching_function_needs_arrow_type: "E0100", "fun f : int = | 0 => 1 | _ => 2;\nprintln$ f;\n";
    let_in_as_operand: "E0100", "println$ let x = 1 in x + 1;\n";
    let_fun_as_operand: "E0100", "println$ let fun f (x: int) => x + 1 in f 2;\n";
    lambda_as_later_tuple_component: "E0100", "fun ap (x: int, f: int -> int) => f x;\nprintln$ ap (3, fun (y: int) => y + 1);\n";
    lambda_as_operand: "E0100", "val k = 1 + fun (y: int) => y;\n";
    darray_set_wrong_element: "E0301", "var w = darray[string] ();\npush_back (w, \"a\");\nset (w, 0, 5);\n";
    let_fun_argument_type: "E0301", "println (let fun f (x: int) => x in f \"a\");\n";
    extend_record_needs_record_bases: "E0301", "val r = (a = 1);\nprintln$ extend r, 2 with (b = 3) end;\n";
    extend_type_record_needs_record_bases: "E0301", "typedef t = extend int with (a:int) end;\n";
    pattern_equal_without_equality: "E0301", "fun f (x: int) => x;\nprintln$ match f with | $(f) => 1 | _ => 2 endmatch;\n";
    pattern_equal_type_mismatch: "E0301", "println$ match 1 with | $(\"a\") => 1 | _ => 2 endmatch;\n";
    guard_in_parentheses_not_bool: "E0301", "println$ match (1, 2) with | (x when x + 1), _ => x | _ => 0 endmatch;\n";
    list_pattern_of_a_non_list: "E0301", "println$ match 1 with | [_] => 1 | _ => 0 endmatch;\n";
    e0301_type_mismatch: "E0301", "var ok = 1;\nvar x : int = \"s\";\n";
    e0302_cannot_infer: "E0302", "fun cnt[N:COMPACTLINEAR] () => Typing::memcount[N];\nprintln$ cnt ();\n";
    e0304_missing_return: "E0304", "fun sign (x:int) : string = {\n  if x > 0 return \"positive\";\n}\nprintln$ sign 1;\n";
    e0401_index_not_compact: "E0401", "var a : int ^ (3 * 2);\n";
    e0402_unitsum_literal_range: "E0402", "var v = `5:3;\n";
    e0403_literal_projection_range: "E0403", "var a = 1, 2, 3;\nprintln$ a.5;\n";
    e0404_caseno_of_product: "E0404", "var c = `1:3 \\, `1:2;\nprintln$ caseno c;\n";
    e0500_reshape_not_layout_identical: "E0500", "var x : int ^ 2 ^ 3 = (0, 1), (10, 11), (20, 21);\nvar y = x :>> int ^ 5;\n";
    e0501_encode_non_compact: "E0501", "println$ ((`2:24, `1:60) :>> int);\n";
    e0502_compact_size_mismatch: "E0502", "var c = `1:3 \\, `1:2;\nvar f = c :>> 5;\n";
    e0601_int_literal_range: "E0601", "var x = 2147483648;\n";
    e0602_literal_suffix: "E0602", "var x = 0x1d;\n";
    e0603_format_conversion: "E0603", "val name = \"x\";\nprintln$ f\"hello %s and %d\" name;\n";
    e0603_format_flag: "E0603", "println$ f\"%#x\" 255u;\n";
    e0301_sqrt_of_an_integer: "E0301", "val x = 4;\nprintln$ sqrt x;\n";
    e0301_no_overload_of_a_primitive: "E0301", "println$ len 3;\n";
    e0301_overloaded_primitive_as_value: "E0301", "val n = len;\n";
    e0301_class_of_a_scheme_variable: "E0301", "println$ \\sum (true, false);\n";
    e0302_primitive_value_never_used: "E0302", "val h = rev;\n";
    e0301_overloaded_curried_primitive_value: "E0301", "val st = startswith;\n";
    e0302_join_value_never_used: "E0302", "val j = join;\n";
    e0301_bitwise_on_a_signed_type: "E0301", "val m = 12;\nprintln$ m \\& 4;\n";
    e0301_shift_of_mixed_types: "E0301", "println$ 1u << 3;\n";
    e0301_format_argument: "E0301", "println$ f\"%d-%S\" (1, 2);\n";
    e0402_subarray_past_the_end: "E0402", "val a = 1, 2, 3;\nprintln$ subarray[4, 1] a;\n";
    e0201_no_cascade_through_the_error_type: "E0201", "fun id (p:(a:int)) => p;\nprintln$ id (a=1, b=nope), rev (1, nope);\n";
    e0701_assign_to_projection: "E0701", "var x = 1, 2, 3;\nx.2 = 30;\n";
    r0001_index_out_of_range: "R0001", "var a = 1, 2, 3;\nvar i = 7;\nprintln$ a.i;\n";
    r0002_decode_out_of_range: "R0002", "var i = 5;\nvar u = i :>> 3;\n";
    r0003_integer_overflow: "R0003", "var x = 2147483647;\nprintln$ x + 1;\n";
    r0004_division_by_zero: "R0004", "var a = 10;\nvar z = a - 10;\nprintln$ a / z;\n";
    r0005_conversion_out_of_range: "R0005", "var big = 3000000000l;\nprintln$ int big;\n";
    r0006_no_match_case: "R0006", "println$ match 3 with | 1 => \"one\" endmatch;\n";
    r0007_array_too_large: "R0007", "var huge : int ^ (1000000007 \\* 1000000009);\nprintln$ huge.len;\n";
    r0009_assertion_failure: "R0009", "val x = 2;\nassert x == 2;\nassert x > 2;\n";
    r0010_shift_count_out_of_range: "R0010", "var n = -1;\nprintln$ 1 << n;\n";
    r0003_signed_shift_overflow: "R0003", "var x = 1073741824;\nprintln$ x << 1;\n";
    r0007_string_too_large: "R0007", "println$ len (\"abcd\" * 2000000000);\n";
    r0007_natural_too_large: "R0007", "var n = 2 :>> natural;\nfor i in 0 ..< 40 do n = n * n; done\n";
    r0011_used_before_initialisation: "R0011", "fun g (y:int) : int => h y;\nprintln$ g 3;\nval h : int -> int = fun (x:int) => x + 1;\n";
    e0102_nesting_too_deep: "E0102", &format!("var x = 1;\nprintln$ {}x{};\n", "(".repeat(257), ")".repeat(257));
    r0008_recursion_too_deep: "R0008", "fun down (n:int) : int => if n == 0 then 0 else 1 + down (n - 1) endif;\nprintln$ down 100000000;\n";
    behaviour_not_arithmetic: "E0301", "println$ true + false;\n";
    size_from_var: "E0301", "var n = 4;\nvar a : double ^ n;\nprintln$ a;\n";
    size_not_integer: "E0301", "val x = 2.5;\nvar a : double ^ x;\nprintln$ a;\n";
    size_in_named_function: "E0301", "fun two (x: int) => x + 2;\nval n = two 1;\nproc show () { var a : double ^ n; println$ a; }\nshow ();\n";
    r0016_reshape_counts_differ: "R0016", "fun count (x: int) => x;\nval n = count 35;\nval xs = init[n] (fun (i: n) => (i :>> int).double);\nval m = n / 3;\nprintln$ (xs :>> double ^ 3 ^ m);\n";
    r0016_reshape_to_static: "R0016", "fun count (x: int) => x;\nval n = count 7;\nval xs = init[n] (fun (i: n) => i :>> int);\nprintln$ (xs :>> int ^ (2 \\* 3));\n";
    reshape_counts_never_equal: "E0500", "fun count (x: int) => x;\nval n = count 3;\nvar a : int ^ (n \\+ 1);\nprintln$ (a :>> int ^ n);\n";
    slice_of_tuple_needs_constant_bounds: "E0301", "var i = 1;\nprintln$ (1, \"a\", 2.5).(i..2);\n";
    slice_of_a_number: "E0301", "val x = 3.5;\nprintln$ x.(0..1);\n";
    size_mismatch_suggests_reshape: "E0301", "fun count (x: int) => x;\nval n = count 3;\nval m = count 4;\nval a = init[n] (fun (i: n) => 1.0);\nval b = init[m] (fun (i: m) => 2.0);\nprintln$ map2 (fun (x: double) (y: double) => x + y) a b;\n";
    r0015_csv_bad_field: "R0015", "save (\"/tmp/tessera-diag-bad.csv\", \"x,y\\n1,2\\n3,z\\n\");\nval m : int ^ (2 \\* 2) = load_csv \"/tmp/tessera-diag-bad.csv\";\nprintln m;\n";
    r0013_csv_directory: "R0013", "val m : double ^ (2 \\* 2) = load_csv \"/\";\nprintln m;\n";
    r0016_negative_size: "R0016", "fun minus (x: int) => 0 - x;\nval n = minus 3;\nvar a : double ^ n;\nprintln$ a;\n";
    behaviour_mixed_operands: "E0301", "var d = 2.0;\nprintln$ 1 + d;\n";
    behaviour_no_equality: "E0301", "val f = fun (x:int) => x;\nprintln$ f == f;\n";
    behaviour_not_ordered: "E0301", "val f = fun (x:int) => x;\nprintln$ (f, 1) < (f, 2);\n";
    behaviour_struct_no_equality: "E0301", "struct S { n: int; f: int -> int; }\nval a = S (1, (fun (x:int) => x));\nval b = S (1, (fun (x:int) => x + 1));\nprintln$ a == b;\n";
    behaviour_struct_not_ordered: "E0301", "struct S { n: int; f: int -> int; }\nval a = S (1, (fun (x:int) => x));\nprintln$ a < a;\n";
    behaviour_nested_path: "E0301", "struct S { f: int -> int; }\nstruct W { k: string; s: int * S; }\nval w = W (\"k\", (1, S (fun (x:int) => x)));\nprintln$ w != w;\n";
    behaviour_variant_constructor: "E0301", "variant op = | Const of int | Apply of int -> int;\nval x = Const 1;\nprintln$ x == x;\n";
    behaviour_array_element: "E0301", "val f = fun (x:int) => x;\nval fs = f, f;\nprintln$ fs == fs;\n";
    behaviour_in_array: "E0301", "struct S { f: int -> int; }\nval s = S (fun (x:int) => x);\nprintln$ s \\in (s, s);\n";
    behaviour_sort: "E0301", "val f = fun (x:int) => x;\nprintln$ sort ((1, f), (0, f));\n";
    behaviour_max: "E0301", "struct S { f: int -> int; }\nval s = S (fun (x:int) => x);\nprintln$ max (s, s);\n";
    behaviour_generic_instance: "E0301", "struct S { f: int -> int; }\nfun same[T] (x:T, y:T) => x == y;\nval s = S (fun (x:int) => x);\nprintln$ same (s, s);\n";
    behaviour_print_nested_pointer: "E0301", "var x = 1;\nprintln$ (1, (x, &x));\n";
    behaviour_negate_not_arithmetic: "E0301", "println$ -true;\n";
    behaviour_sum_not_arithmetic: "E0301", "println$ \\sum (\"a\", \"b\");\n";
    behaviour_int_not_invocable: "E0301", "val x = 3;\nprintln$ x 4;\n";
    behaviour_not_convertible: "E0301", "println$ int true;\n";
    behaviour_not_implicitly_convertible: "E0301", "var a : int8 = 5;\n";
    behaviour_not_invocable: "E0301", "var b = 4, 5, 6;\nvar u = `1:2;\nprintln$ b.u;\n";
    behaviour_no_overload: "E0301", "fun f (x:int) => x;\nfun f (x:string) => x;\nprintln$ f 2.5;\n";
    e0302_recursive_result: "E0302", "fun forever (x:int) => forever x;\nprintln$ forever 1;\n";
    behaviour_ambiguous_overload: "E0301", "fun f (a:int) (b:int) => a + b;\nfun f (a:int) (b:double) => a.double + b;\nval h = f 1;\n";
    e0201_self_reference: "E0201", "val y = y + 1;\n";
    e0301_destructure_count: "E0301", "val a, b = 1, 2, 3;\nprintln a;\n";
    e0201_uppercase_pattern: "E0201", "val k = 3;\nprintln$ match k with | N => 1 | _ => 0 endmatch;\n";
    e0100_c_binding: "E0100", "fun f : int -> int = \"foo($1)\";\n";
    e0100_destructure_target: "E0100", "a, 1 := 1, 2;\n";
    e0100_open_if_operand: "E0100", "println$ if true then 1 else 2;\n";
    e0702_address_of_val: "E0702", "val v = 2;\nval p = &v;\n";
    e0702_address_of_expression: "E0702", "var x = 1;\nval p = &(x + 1);\n";
    e0702_address_of_parenthesised_projection: "E0702", "var x = 1, 2;\nval r = &(x.1);\n";
    e0702_address_of_parameter: "E0702", "fun f (n:int) => &n;\n";
    // Secrets: every way a secret could leak, each with its code, the secret's name and
    // where it became secret.
    e0800_secret_function: "E0800", "var f : secret (int -> int) = fun (x:int) => x;\n";
    e0800_secret_field: "E0800", "struct P { x : secret int; }\n";
    e0800_public_of_secret: "E0800", "typedef s = secret int;\nvar x : public s = 1;\n";
    e0801_print_secret: "E0801", "var pin : secret int = 1234;\nprintln$ pin;\n";
    e0801_str_of_secret_in_tuple: "E0801", "var pin : secret int = 1234;\nval t = (1, pin + 1);\nprintln$ str t;\n";
    e0801_format_secret: "E0801", "var pin : secret int = 1234;\nprintln$ f\"%d\" pin;\n";
    e0801_print_secret_struct: "E0801", "struct P { x : int; }\nvar p : secret P = P (1);\nprintln$ p;\n";
    e0802_if_on_secret: "E0802", "var pin : secret int = 1234;\nif pin > 1000 do println 1; done\n";
    e0802_while_on_secret: "E0802", "var pin : secret int = 3;\nvar k : secret int = 0;\nwhile k < pin do k = k + 1; done\n";
    e0802_conditional_expression_on_secret: "E0802", "var b : secret bool = true;\nval x = if b then 1 else 2;\n";
    e0802_match_on_secret: "E0802", "var pin : secret int = 2;\nval x = match pin with | 1 => 10 | _ => 20 endmatch;\n";
    e0802_effect_after_secret_and: "E0802", "var b : secret bool = true;\nfun f () : bool = { println 1; return true; }\nval c = b and f ();\n";
    e0803_secret_index: "E0803", "val a = 10, 20, 30;\nvar i : secret int = 1;\nval x = a.i;\n";
    e0803_secret_loop_bound: "E0803", "var n : secret int = 3;\nfor i in 0 ..< n do println i; done\n";
    e0803_secret_decode: "E0803", "var n : secret int = 3;\nval c = n :>> 5;\n";
    e0803_secret_string_len: "E0803", "var s : secret string = \"abc\";\nval n = len s;\n";
    e0804_secret_assigned_to_public: "E0804", "var pin : secret int = 1234;\nvar copy = 0;\ncopy = pin;\n";
    e0804_secret_through_pointer: "E0804", "var pin : secret int = 1234;\nvar copy = 0;\nval p = &copy;\np <- pin;\n";
    e0804_secret_into_captured: "E0804", "var pin : secret int = 1234;\nvar seen = 0;\nproc look () { seen = pin; }\nlook ();\n";
    e0804_secret_element_store: "E0804", "var pin : secret int = 1234;\nvar a = 1, 2, 3;\n&a.1 <- pin;\n";
    e0805_secret_returned_as_public: "E0805", "var pin : secret int = 1234;\nfun f () : int => pin;\n";
    // A distributed array where the whole array is needed: the operation is named and
    // `collect a` suggested.
    e0810_print_distributed: "E0810", "val d : distributed double ^ 4 = (1.0, 2.0, 3.0, 4.0);\nprintln d;\n";
    e0810_element_of_distributed: "E0810", "val d : distributed int ^ 3 = (1, 2, 3);\nprintln$ d.1;\n";
    e0810_library_function_of_distributed: "E0810", "val d : distributed int ^ 3 = (1, 2, 3);\nval r = join d d;\n";
    e0810_sort_by_of_distributed: "E0810", "val d : distributed int ^ 3 = (1, 2, 3);\nval r = sort (fun (x: int, y: int) => x > y) d;\n";
    e0810_user_overload_of_chunked_library: "E0810", "fun mean (a: int ^ 3) : int => a.0;\nval d : distributed int ^ 3 = (1, 2, 3);\nval m = mean d;\n";
    e0810_owned_loop_assigns_outside: "E0810", "val a : distributed double ^ 4 = (1.0, 2.0, 3.0, 4.0);\nvar s = 0.0;\nfor i in ..[4] do s = s + a.i; done\n";
    e0810_owned_loop_variable_read_after: "E0810", "val a : distributed double ^ 4 = (1.0, 2.0, 3.0, 4.0);\nvar b : distributed double ^ 4 = a;\nfor i in ..[4] do val t = a.i; &b.i <- t; done\nprintln$ t;\n";
    e0810_fold_accumulator_of_another_type: "E0810", "val d : distributed int ^ 3 = (1, 2, 3);\nval s = fold_left (fun (acc: string) (x: int) => acc + x.str) \"\" d;\n";
    e0810_stencil_reads_what_it_stores: "E0810", "var a : distributed double ^ 4 = (1.0, 2.0, 3.0, 4.0);\nfor i in ..[4] do if (i :>> int) > 0 do &a.i <- a.((i :>> int) - 1); done done\n";
    e0810_stencil_offset_not_constant: "E0810", "val a : distributed int ^ 4 = (1, 2, 3, 4);\nvar b : distributed int ^ 4 = a;\nfor i in ..[4] do &b.i <- a.(((i :>> int) + 1) % 4); done\n";
    e0810_distributed_to_plain: "E0810", "val d : distributed int ^ 3 = (1, 2, 3);\nval p : int ^ 3 = d;\n";
    e0810_reshape_to_plain: "E0810", "val d : distributed int ^ 6 = (1, 2, 3, 4, 5, 6);\nval p = d :>> int ^ (2 \\* 3);\n";
    e0811_distributed_scalar: "E0811", "val s : distributed int = 3;\n";
    e0806_secret_to_printing_function: "E0806", "proc show (x:int) { println x; }\nvar pin : secret int = 1;\nshow pin;\n";
    e0806_secret_to_branching_function: "E0806", "fun sign (x:int) : int => if x < 0 then -1 else 1;\nvar pin : secret int = 1;\nval s = sign pin;\n";
    e0806_secret_to_function_value: "E0806", "val f = fun (x:int) => x + 1;\nfun apply (g: int -> int) (x: secret int) : secret int => g x;\n";
    e0806_public_function_value_in_map: "E0806", "var w : secret double ^ 3 = 0.5, 1.5, 2.0;\nval g = fun (x: double) => x * 2.0;\nval h = map g w;\n";
    e0802_secret_lambda_in_map: "E0802", "var a : secret int ^ 3 = 1, 2, 3;\nval b = map (fun (x:int) => if x > 1 then 1 else 0) a;\n";
    e0301_print_pointer: "E0301", "var x = 1;\nprintln$ &x;\n";
    e0301_pointer_equality: "E0301", "var x = 1;\nprintln$ &x == &x;\n";
    e0301_read_write_only_pointer: "E0301", "var x = 1;\nval w = &>x;\nprintln$ *w;\n";
    e0301_store_read_only_pointer: "E0301", "var x = 1;\nval r = &<x;\nr <- 2;\n";
    e0301_deref_non_pointer: "E0301", "val x = 1;\nprintln$ *x;\n";
    e0500_pointer_cast: "E0500", "var a = 1, 2, 3;\nval p = C_hack::cast[&(int ^ 4)] (&a);\n";
    r0001_compact_array_index: "R0001", "var y : 5 \\^ 3;\nvar k = 7;\nprintln$ y.k;\n";
    e0202_duplicate_record_field: "E0202", "var r = (a=1, b=2, a=3);\n";
    e0202_duplicate_record_type_field: "E0202", "typedef T = (a:int, a:string);\n";
    e0301_record_positional_projection: "E0301", "var r = (a=1, b=2);\nprintln$ r.0;\n";
    e0301_record_equality: "E0301", "var r = (a=1, b=2);\nprintln$ r == r;\n";
    e0701_assign_to_record_field: "E0701", "var r = (a=1, b=2);\nr.a = 3;\n";
    e0301_struct_from_record_missing_field: "E0301", "struct X { a:int; b:string; }\nvar x = X (a=1);\n";
    e0301_struct_from_record_extra_field: "E0301", "struct X { a:int; }\nvar x = X (a=1, c=2);\n";
    e0301_record_not_a_subtype: "E0301", "fun f (x:(a:int, c:int)) => x.a;\nprintln$ f (a=1, b=2);\n";
    e0301_record_subtype_only_for_arguments: "E0301", "var r = (a=1, b=2);\nvar s : (a:int) = r;\n";
    e0301_record_pattern_unknown_field: "E0301", "match (a=1) with | (b=k) => println k; endmatch;\n";
    e0303_opaque_print: "E0303", "type Key;\nbegin\n  type Key = new string;\n  fun key (s:string) : Key => _make_Key s;\nend\nval k = key \"a\";\nprintln$ k;\n";
    e0303_opaque_projection: "E0303", "type Key;\nbegin\n  type Key = new string;\n  fun key (s:string) : Key => _make_Key s;\nend\nval k = key \"a\";\nprintln$ k.0;\n";
    e0303_opaque_reshape: "E0303", "type Key;\nbegin\n  type Key = new string;\n  fun key (s:string) : Key => _make_Key s;\nend\nval k = key \"a\";\nval s = k :>> string;\n";
    e0303_opaque_arithmetic: "E0303", "type Key;\nbegin\n  type Key = new string;\n  fun key (s:string) : Key => _make_Key s;\nend\nval k = key \"a\";\nval j = k + k;\n";
    e0303_opaque_no_equality: "E0303", "type Key;\nbegin\n  type Key = new string;\n  fun key (s:string) : Key => _make_Key s;\nend\nval k = key \"a\";\nprintln$ (k, 1) == (k, 1);\n";
    e0303_opaque_not_ordered: "E0303", "type Id = new int with Eq;\nprintln$ _make_Id 1 < _make_Id 2;\n";
    e0303_opaque_repr_hidden: "E0303", "type Id = new int;\ntype Key;\nbegin\n  type Key = new string;\n  fun key (s:string) : Key => _make_Key s;\nend\nval k = key \"a\";\nprintln$ _repr_ k;\n";
    e0201_opaque_make_hidden: "E0201", "type Key;\nbegin\n  type Key = new string;\n  fun key (s:string) : Key => _make_Key s;\nend\nval k = key \"a\";\nval m = _make_Key \"b\";\n";
    e0303_opaque_no_representation: "E0303", "type Key;\nfun f (k:Key) => 1;\n";
    e0303_opaque_bad_grant: "E0303", "type Key = new string with Ord;\n";
    e0303_opaque_eq_without_equality: "E0303", "type F = new int -> int with Eq;\n";
    e0303_opaque_self_representation: "E0303", "type K = new K * int;\n";
    e0401_kind_of_type_argument: "E0401", "typedef grid[N:COMPACTLINEAR] = double ^ N;\nvar g : grid[int];\n";
    e0401_kind_of_type_parameter_argument: "E0401", "struct Cells[N:UNITSUM] { c: int ^ N; }\nfun f[T:COMPACTLINEAR] (x: Cells[T]) => 1;\n";
    e0301_type_argument_count: "E0301", "typedef pair[T] = T * T;\nval q : pair[int, string] = 1, 2;\n";
    e0301_parametric_type_without_arguments: "E0301", "struct Box[T] { v: T; }\nfun get (b: Box) => b.v;\n";
    e0301_type_arguments_to_plain_type: "E0301", "var x : int[2];\n";
    e0301_irregular_recursive_type: "E0301", "variant nest[T] = | Flat of T | Deeper of nest[T * T];\n";
    e0302_uninferred_type_argument: "E0302", "variant opt[T] = | None | Some of T;\nprintln$ None;\n";
    // Newcomer mistakes, one error each.
    e0201_self_reference_var: "E0201", "var x = x + 1;\n";
    e0201_self_reference_missing_semicolon: "E0201", "var x = 1\nx;\n";
    e0201_self_reference_in_function: "E0201", "fun f () = { val n = n * 2; return n; }\nprintln$ f ();\n";
    e0301_type_needs_the_declaration_using_it: "E0301", "var x = m + 1;\nvar m = x;\nprintln$ m;\n";
    arity_curried_too_many: "E0301", "fun add (a:int) (b:int) => a + b;\nprintln$ add 1 2 3;\n";
    arity_tuple_too_few: "E0301", "fun add3 (a:int, b:int, c:int) => a + b + c;\nprintln$ add3 (1, 2);\n";
    arity_tuple_given_one_by_one: "E0301", "fun add3 (a:int, b:int, c:int) => a + b + c;\nprintln$ add3 1 2 3;\n";
    arity_mixed_groups: "E0301", "fun f (a:int, b:int) (c:int) => a + b + c;\nprintln$ f (1, 2) 3 4;\n";
    arity_single_parameter_given_a_pair: "E0301", "fun sq (x:int) => x * x;\nprintln$ sq (1, 2);\n";
    arity_primitive: "E0301", "println$ len (1, 2, 3) 4;\n";
    one_error_tuple_as_index: "E0301", "val a = 1, 2, 3;\nprintln$ a.(1, 2);\n";
    unclosed_for: "E0100", "for i in 0 ..< 3 do\n  println i;\nprintln \"end\";\n";
    unclosed_while: "E0100", "var i = 0;\nwhile i < 3 do\n  i = i + 1;\n";
    unclosed_if_blames_the_if_not_else: "E0100", "val n = 3;\nif n > 2 then\n  println \"big\";\nelse\n  println \"small\";\n";
    unclosed_if_do: "E0100", "val n = 3;\nif n > 2 do\n  println \"big\";\nelse\n  println \"small\";\n";
    unclosed_begin: "E0100", "begin\n  println 1;\n";
    unclosed_for_inside_begin: "E0100", "begin\n  for i in 0 ..< 2 do println i;\nend\n";
    unclosed_paren: "E0100", "println$ (1 + 2;\nprintln 3;\n";
    unclosed_brace: "E0100", "fun f (x:int) = {\n  return x;\n";
    did_you_mean_name: "E0201", "val count = 3;\nprintln$ cont + 1;\n";
    did_you_mean_library_function: "E0201", "println$ revv (1, 2, 3);\n";
    did_you_mean_type: "E0201", "var s : strng = \"a\";\n";
    did_you_mean_constructor: "E0201", "variant t = | Leaf | Node of int;\nval v = Lef;\n";
    did_you_mean_pattern_constructor: "E0201", "variant t = | Leaf | Node of int;\nprintln$ match Node 1 with | Laef => 1 | _ => 2 endmatch;\n";
    did_you_mean_record_field: "E0201", "val r = (alpha=1, beta=2);\nprintln$ r.alhpa;\n";
    did_you_mean_struct_field: "E0201", "struct P { alpha:int; }\nval p = P 1;\nprintln$ p.alhpa + 1;\n";
    int_plus_string_suggests_str: "E0301", "val n = 3;\nprintln$ n + \" items\";\n";
    string_plus_double_suggests_str: "E0301", "println$ \"x = \" + 1.5;\n";
    reserved_word_total: "E0100", "val total = 3;\n";
    reserved_word_new_as_function: "E0100", "fun new (x:int) => x;\n";
    reserved_word_as_loop_variable: "E0100", "for total in 0 ..< 3 do println total; done\n";
    // Each use of a reserved word as a name says so, not that a `;` is missing before it.
    reserved_word_in_later_statements: "E0100", "var total = 0;\nval k = 2;\ntotal += k;\nprintln total;\n";
    // The call stack of an error inside user functions, innermost first.
    stack_one_frame: "R0004", "fun ratio (a:int, b:int) : int => a / b;\nprintln$ ratio (10, 0);\n";
    stack_two_frames: "R0001", "fun pick (a:int ^ 3, i:int) : int => a.i;\nfun fifth (a:int ^ 3) : int => pick (a, 5);\nprintln$ fifth (1, 2, 3);\n";
    stack_seven_frames_recursion: "R0004", "fun countdown (n:int) : int =>\n  if n == 0 then 100 / n else 1 + countdown (n - 1) endif;\nprintln$ countdown 6;\n";
    // A self tail call is a jump: the fault deep in the recursion shows one frame.
    stack_tail_call_is_one_frame: "R0004", "fun countdown (n:int) : int =>\n  if n == 0 then 100 / n else countdown (n - 1) endif;\nprintln$ countdown 6;\n";
    stack_through_a_procedure: "R0003", "proc report (n:int) { println$ n * 1000000000; }\nfor i in 1 .. 3 do report i; done\n";
    stack_library_iter: "R0004", "iter (proc (x:int) { println$ 12 / x; }) (3, 0);\n";
    stack_library_fold_right: "R0004", "println$ fold_right (fun (x:int) (s:int) => s / x) (1, 0, 2) 8;\n";
    stack_sort_comparison: "R0004", "println$ sort (fun (a:int, b:int) => a / b < 1) (3, 0, 2);\n";
    stack_vectorised_map: "R0004", "fun inv (x:int) : int => 100 / x;\nprintln$ map inv (1, 2, 0);\n";
    stack_recursion_too_deep_is_counted: "R0008", "fun spin (n:int) : int => 1 + spin (n + 1);\nprintln$ spin 0;\n";
    // Modules and type classes.
    class_missing_instance: "E0301", "class Str2[T] {\n  virtual fun str2: T -> string;\n}\ninstance Str2[int] { fun str2 (x:int) => str x; }\nprintln$ Str2::str2 1.5;\n";
    class_missing_instance_of_constraint: "E0301", "class Str2[T] {\n  virtual fun str2: T -> string;\n}\nfun show[T with Str2[T]] (x:T) => str2 x;\nprintln$ show 1.5;\n";
    class_virtual_without_definition_or_default: "E0301", "class C[T] {\n  virtual fun f: T -> int;\n  virtual fun g: T -> int;\n}\ninstance C[int] { fun f (x:int) => x; }\nprintln$ C::g 1;\n";
    class_virtual_at_a_type_parameter: "E0301", "class C[T] { virtual fun f: T -> int; }\nfun h[T] (x:T) => C::f x;\n";
    module_unknown_member: "E0201", "module Geometry { fun dist (x:int) => x; }\nprintln$ Geometry::dits 1;\n";
    module_unknown_variable: "E0201", "module Counter { var count = 0; }\nprintln$ Counter::cont;\n";
    module_open_unknown: "E0201", "module Geometry { fun dist (x:int) => x; }\nopen Geometry2;\n";
    class_instance_with_clause_unmet: "E0301", "class Show[T] { virtual fun show: T -> string; }\ninstance Show[int] { fun show (i:int) => str i; }\ninstance[U with Show[U]] Show[list[U]] {\n  fun show (l: list[U]) : string => match l with | Empty => \"\" | Cons (h, t) => show h + show t endmatch;\n}\nprintln$ Show::show (list (1.5, 2.5));\n";
    class_instance_with_clause_unmet_through_a_constraint: "E0301", "class Show[T] { virtual fun show: T -> string; }\ninstance[U with Show[U]] Show[U * U] { fun show (p: U * U) => show p.0 + show p.1; }\nfun twice[T with Show[T]] (x: T) => show x + show x;\nprintln$ twice (\"a\", \"b\");\n";
    qualified_call_too_many_type_arguments: "E0301", "module M { fun id[T] (x:T) => x; }\nprintln$ M::id[int, int] 3;\n";
    qualified_call_module_type_arguments: "E0301", "module Pairs[t] { fun swap (p: t * t) => p.1, p.0; }\nprintln$ Pairs[int, int]::swap (1, 2);\n";
    qualified_call_too_many_through_the_module: "E0301", "module X[t] { fun conv[u] (x: t, y: u) => (y, x); }\nprintln$ X[long]::conv[int, int] (1L, 2);\n";
    module_name_opened_not_inherited: "E0201", "module A { fun f (x:int) => x + 1; }\nmodule B { open A; }\nprintln$ B::f 1;\n";
    module_inherited_name_clashes: "E0202", "module A { val a = 1; }\nmodule B { inherit A; val a = 2; }\nprintln$ B::a;\n";
    // Felix's list and string library.
    list_cons_not_a_list: "E0301", "val l = 1 ! 2;\nprintln$ l;\n";
    list_cons_pattern_on_an_int: "E0301", "match 3 with\n| h ! t => println h;\n| _ => println 0;\nendmatch;\n";
    list_plus_of_two_element_types: "E0301", "println$ list (1, 2) + list (\"a\", \"b\");\n";
    string_find_needle_not_a_string: "E0301", "println$ find (\"abc\", 3);\n";
    class_unknown_in_constraint: "E0201", "class Shape[T] { virtual fun area: T -> double; }\nfun f[T with Shap[T]] (x:T) => 1;\n";
}

/// A file of prose: the first 20 errors, then the count of the others.
#[test]
fn more_than_twenty_errors_are_counted() {
    let src = "This is not a program: it is a paragraph of prose, one clause a line;\n".repeat(30);
    let mut session = Session::new(Settings::default().with_stdout(std::io::sink()));
    let diags = session.run_source(&src).expect_err("prose");
    let rendered = render(&diags, "prose.flx", &src, false);
    assert!(diags.len() > 20, "{rendered}");
    assert_eq!(rendered.matches("] Error:").count(), 20, "{rendered}");
    let tail = format!("… and {} more errors not shown", diags.len() - 20);
    assert!(rendered.contains(&tail), "{rendered}");
}

#[test]
fn every_syntax_error_of_a_file_is_reported() {
    let src = "var a = ;\nvar b = 1;\nvar c = ;\nprintln$ b;\n";
    let mut session = Session::new(Settings::default().with_stdout(std::io::sink()));
    let diags = session.run_source(src).expect_err("two syntax errors");
    let rendered = render(&diags, "several.flx", src, false);
    assert!(diags.len() >= 2, "expected both errors:\n{rendered}");
    assert!(rendered.contains("several.flx:1:"), "{rendered}");
    assert!(rendered.contains("several.flx:3:"), "{rendered}");
    assert!(diags.iter().all(|diag| diag.code == "E0100"), "{rendered}");
}

/// E0103 is found by the command line before a session starts (the source is bytes).
#[test]
fn e0103_not_utf8() {
    let src = "println 1;\n\u{FFFD}\u{FFFD} println 2;\n";
    let diag = tessera::not_utf8_diagnostic(src, 11);
    let rendered = render(&[diag], "test.flx", src, false);
    assert!(rendered.contains("[E0103]"));
    insta::assert_snapshot!(rendered);
}
