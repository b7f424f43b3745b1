//! Snapshots of the inlined IR.

use crate::check::Checker;
use crate::core::print;
use crate::eval::Machine;

/// The IR of `src` (checked without the prelude, so its functions are numbered from 0)
/// after the inlining pass, as `core::print` writes it.
fn inlined(src: &str, on: bool) -> String {
    let stmts =
        crate::parse_program_or_errors(src, Default::default()).expect("the program parses");
    let unit = Checker::new()
        .check_program(&stmts)
        .expect("the program checks");
    let mut machine = Machine::new();
    machine.set_inlining(on);
    print::unit(&machine.inlined_ir(&unit))
}

fn check(src: &str, expected: &str) {
    let got = inlined(src, true);
    assert_eq!(got.trim(), expected.trim(), "the inlined IR is\n{got}");
}

#[test]
fn a_stable_argument_is_substituted_for_its_parameter() {
    check(
        "fun square (x: int) : int => x * x;\nprintln (square 3);",
        "
fun f0 square (l0 : int) : int slots 1 pure {
  return IntArith(Mul, Int)(l0, l0)
}
Println(inline square => IntArith(Mul, Int)(3, 3))",
    );
}

#[test]
fn any_other_argument_is_assigned_to_the_relocated_parameter_first() {
    check(
        "fun square (x: int) : int => x * x;\nvar a = 2;\nprintln (square (a + 1));",
        "
fun f0 square (l0 : int) : int slots 1 pure {
  return IntArith(Mul, Int)(l0, l0)
}
g0 = 2
Println(loop {
  l0 = IntArith(Add, Int)(g0, 1)
} => inline square => IntArith(Mul, Int)(l0, l0))",
    );
}

#[test]
fn fold_left_with_a_known_function_is_a_loop() {
    check(
        "val a = (1, 2, 3);\nprintln (fold_left (fun (acc: int) (v: int) => acc + v) 0 a);",
        "
fun f0 <lambda> (l0 : int) (l1 : int) : int slots 2 pure {
  return IntArith(Add, Int)(l0, l1)
}
g0 = [1, 2, 3]
Println(loop {
  l0 = 0
  for L16777217 l1 in g0 {
    l0 = inline <lambda> => IntArith(Add, Int)(l0, l1)
  }
} => l0)",
    );
}

#[test]
fn map_with_a_known_function_is_a_map_loop() {
    check(
        "val a = (1, 2, 3);\nprintln (map (fun (v: int) => v * 2) a);",
        "
fun f0 <lambda> (l0 : int) : int slots 1 pure {
  return IntArith(Mul, Int)(l0, 2)
}
g0 = [1, 2, 3]
Println(map l0 in g0 => inline <lambda> => IntArith(Mul, Int)(l0, 2))",
    );
}

#[test]
fn filter_with_a_known_predicate_is_a_filtering_map_loop() {
    check(
        "val a = (1, 2, 3);\nprintln (filter (fun (v: int) => v > 1) a);",
        "
fun f0 <lambda> (l0 : int) : bool slots 1 pure {
  return Compare(Gt)(l0, 1)
}
g0 = [1, 2, 3]
g1 = filter l0 in g0 => inline <lambda> => Compare(Gt)(l0, 1)
specialise filter' = Len(g1) {
  Println(g1)
}",
    );
}

#[test]
fn a_function_with_a_loop_is_called_outside_loops_and_inlined_inside_them() {
    check(
        "fun tri (n: int) : int = { var s = 0; for i in 0 ..< n do s = s + i; done return s; }
println (tri 4);
for k in 0 ..< 2 do println (tri k); done",
        "
fun f0 tri (l0 : int) : int slots 3 pure {
  l1 = 0
  for L0 l2 in 0 ..< l0 {
    l1 = IntArith(Add, Int)(l1, l2)
  }
  return l1
}
Println(f0(4))
for L0 g0 in 0 ..< 2 {
  Println(inline tri {
    l1 = 0
    for L16777216 l2 in 0 ..< g0 {
      l1 = IntArith(Add, Int)(l1, l2)
    }
  } => l1)
}",
    );
}

#[test]
fn a_function_with_a_loop_given_a_function_is_inlined_outside_loops() {
    check(
            "fun each (f: int -> int) (n: int) : int = { var s = 0; for i in 0 ..< n do s = s + f i; done return s; }
println (each (fun (x: int) => x * x) 3);",
            "
fun f1 <lambda> (l0 : int) : int slots 1 pure {
  return IntArith(Mul, Int)(l0, l0)
}
fun f0 each (l0 : int -> int) (l1 : int) : int slots 4 {
  l2 = 0
  for L0 l3 in 0 ..< l1 {
    l2 = IntArith(Add, Int)(l2, l0(l3))
  }
  return l2
}
Println(inline each {
  l2 = 0
  for L16777216 l3 in 0 ..< 3 {
    l2 = IntArith(Add, Int)(l2, inline <lambda> => IntArith(Mul, Int)(l3, l3))
  }
} => l2)",
        );
}

#[test]
fn a_function_with_a_loop_given_a_function_in_its_tuple_is_inlined_outside_loops() {
    let got = inlined(
        "fun each (f: int -> int, n: int) : int = { var s = 0; for i in 0 ..< n do s = s + f i; done return s; }
println (each ((fun (x: int) => x * x), 3));",
        true,
    );
    let top = &got[got.find("Println").expect("the top level prints")..];
    assert!(
        top.starts_with("Println(inline each"),
        "the inlined IR is\n{got}"
    );
    assert!(
        top.contains("inline <lambda> => IntArith(Mul, Int)"),
        "the inlined IR is\n{got}"
    );
}

#[test]
fn a_recursive_function_is_called() {
    check(
        "fun fact (n: int) : int => if n <= 1 then 1 else n * fact (n - 1);\nprintln (fact 5);",
        "
fun f0 fact (l0 : int) : int slots 1 pure {
  return (if Compare(Le)(l0, 1) then 1 else IntArith(Mul, Int)(l0, f0(IntArith(Sub, Int)(l0, 1))))
}
Println(f0(5))",
    );
}

#[test]
fn a_procedure_storing_through_its_pointer_parameter_is_inlined() {
    // Given the address of `a`, what the body reaches through its pointer is `a`'s
    // elements, read and stored in place.
    check(
        "var a : int ^ 3 = (1, 2, 3);
proc swap (p: &(int ^ 3), i: int, j: int) { val t = *p.i; p.i <- *p.j; p.j <- t; }
swap (&a, 0, 2);",
        "
proc f0 swap ((l0, l1, l2) : &(int ^ 3) * int * int) : void slots 4 {
  l3 = *&(l0)[l1]
  *&(l0)[l1] <- *&(l0)[l2]
  *&(l0)[l2] <- l3
}
g0 = [1, 2, 3]
inline swap {
  l3 = g0[0]
  g0[0] <- g0[2]
  g0[2] <- l3
}",
    );
}

#[test]
fn a_pointer_to_an_element_at_a_computed_position_is_the_element_in_the_body() {
    // `&a.(k + 1)`: the position is computed into a new local of the caller (`l1`, past the
    // callee's slot) and checked by a read of the element, where taking the pointer would
    // have; the body reads and stores that element in place, whatever it does to `k`.
    check(
        "var a : int ^ 3 = (1, 2, 3);
var k = 0;
proc bump (p: &int) { k += 1; p <- *p + 10; }
bump (&a.(k + 1));",
        "
proc f0 bump (l0 : &int) : void slots 1 {
  g1 = IntArith(Add, Int)(g1, 1)
  *l0 <- IntArith(Add, Int)(*l0, 10)
}
g0 = [1, 2, 3]
g1 = 0
loop {
  l1 = IntArith(Add, Int)(g1, 1)
  g0[l1]
  inline bump {
    g1 = IntArith(Add, Int)(g1, 1)
    g0[l1] <- IntArith(Add, Int)(g0[l1], 10)
  }
}",
    );
}

#[test]
fn a_local_holding_an_address_is_the_component_where_it_is_read() {
    // `val p = bs.i`: the assignment is replaced by the check taking the pointer makes (a
    // read of the element), and each read of `p` by the address; a pointer whose index is
    // assigned before it is read (`k = 2`) stays a pointer.
    check(
        "proc step (bs: &(double ^ 4), n: int) {
  for i in 0 ..< n do val p = bs.i; p <- *p * 2.0; done
}
proc keep (a: &(int ^ 3)) { var k = 0; val p = a.k; k = 2; p <- 9; }",
        "
proc f0 step ((l0, l1) : &(double ^ 4) * int) : void slots 4 {
  for L0 l2 in 0 ..< l1 {
    *&(l0)[l2]
    *&(l0)[l2] <- FloatArith(Mul, false)(*&(l0)[l2], 2.0)
  }
}
proc f1 keep (l0 : &(int ^ 3)) : void slots 3 {
  l1 = 0
  l2 = &(l0)[l1]
  l1 = 2
  *l2 <- 9
}",
    );
}

#[test]
fn an_inlined_body_gets_slots_and_labels_past_the_callers() {
    check(
        "fun sum_below (n: int) : int { var s = 0; for i in 0 ..< n do s = s + i; done return s; }
fun outer (m: int) : int { val k = m * 2; return sum_below k; }
for r in 0 ..< 1 do println (outer 2); done",
        "
fun f0 sum_below (l0 : int) : int slots 3 pure {
  l1 = 0
  for L0 l2 in 0 ..< l0 {
    l1 = IntArith(Add, Int)(l1, l2)
  }
  return l1
}
fun f1 outer (l0 : int) : int slots 2 pure {
  l1 = IntArith(Mul, Int)(l0, 2)
  return f0(l1)
}
for L0 g0 in 0 ..< 1 {
  Println(inline outer {
    l1 = IntArith(Mul, Int)(2, 2)
  } => inline sum_below {
    l3 = 0
    for L16777217 l4 in 0 ..< l1 {
      l3 = IntArith(Add, Int)(l3, l4)
    }
  } => l3)
}",
    );
}

#[test]
fn with_inlining_off_the_unit_is_unchanged() {
    let src = "fun square (x: int) : int => x * x;\nprintln (square 3);";
    let stmts =
        crate::parse_program_or_errors(src, Default::default()).expect("the program parses");
    let unit = Checker::new()
        .check_program(&stmts)
        .expect("the program checks");
    assert_eq!(inlined(src, false), print::unit(&unit));
    assert!(inlined(src, true) != print::unit(&unit));
}

#[test]
fn a_cell_only_an_inlined_lambda_captured_is_a_local() {
    let got = inlined(
        "fun f (n: int) : int ^ 3 = { val k = n + 1; return map (fun (v: int) => v * k) (1, 2, 3); }\nprintln (f 2);",
        true,
    );
    let f = got
        .split("\nfun ")
        .find(|f| f.contains(" f (") || f.starts_with("fun f1 f"))
        .expect("f is printed");
    assert!(!f.contains("cells"), "no cell is left in\n{got}");
    assert!(!f.contains("lc"), "the cell is read as a local in\n{got}");
}

#[test]
fn a_cell_a_closure_still_captures_stays_a_cell() {
    let got = inlined(
        "fun f (n: int) : int -> int = { val k = n + 1; return fun (v: int) => v * k; }\nprintln ((f 2) 3);",
        true,
    );
    assert!(got.contains("cells"), "the cell is kept in\n{got}");
}
