#!/usr/bin/env python3
"""Regenerates the malformed-input corpus of this folder. Run from the repository
root: python3 tests/malformed/generate.py. Writes the inputs under tests/malformed/cases/;
the expected exit status and error code of each are in tests/malformed/expected.txt, written
by `RECORD=1 cargo test --test malformed` and reviewed by hand (every status must be 0, 1 or 3,
never a crash)."""

import os
import random

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases")
os.makedirs(ROOT, exist_ok=True)
random.seed(9)
count = 0


def w(name, data):
    global count
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(os.path.join(ROOT, name), "wb") as f:
        f.write(data)
    count += 1


# Truncated programs: every example cut at several points.
examples = sorted(
    p for p in os.listdir("examples") if p.endswith(".flx")
)
for name in examples:
    src = open(os.path.join("examples", name), "rb").read()
    for fraction in (0.25, 0.5, 0.75, 0.9):
        cut = int(len(src) * fraction)
        w(f"trunc_{name[:-4]}_{int(fraction * 100)}.flx", src[:cut])

# Binary bytes and non-UTF-8.
for i in range(12):
    w(f"binary_{i}.flx", bytes(random.randrange(256) for _ in range(random.randrange(1, 400))))
w("latin1_string.flx", b'println "caf\xe9";\n')
w("lone_continuation.flx", b"println 1;\n\x80\n")
w("overlong_utf8.flx", b"println \"\xc0\xaf\";\n")
w("nul_bytes.flx", b"println 1;\x00\x00\nprintln 2;\n")
w("bom.flx", "\ufeffprintln 1;\n")
w("utf16.flx", "println 1;\n".encode("utf-16"))

# Huge literals and types.
huge = {
    "int_literal": "println 99999999999999999999999999999999999999;\n",
    "long_literal": "println 99999999999999999999999999l;\n",
    "float_literal": "println 1e999999;\n",
    "natural_literal": "var n = " + "9" * 5000 + " :>> natural;\nprintln n;\n",
    "unitsum_literal": "var u = `99999999999999999999999:3;\n",
    "cpow_million": "var x : 2 \\^ (10 \\^ 6);\nprintln 1;\n",
    "cpow_huge": "var x : 2 \\^ (10 \\^ 6);\nprintln x;\n",
    "cpow_tower": "var x : 2 \\^ 2 \\^ 2 \\^ 2 \\^ 2 \\^ 2 \\^ 2;\n",
    "array_huge": "var a : int ^ 100000000000;\nprintln$ len a;\n",
    "array_huge_2d": "var a : int ^ (100000 \\* 100000);\nprintln$ len a;\n",
    "array_huge_compact_index": "var a : double ^ (2 \\^ 40);\nprintln$ a.0;\n",
    "string_huge": "println$ len (\"abc\" * 1000000000000);\n",
    "string_negative_repeat": "println$ len (\"abc\" * -5);\n",
    "unitsum_type_huge": "var x : 18446744073709551617;\nprintln 1;\n",
    "unitsum_sum_huge": "var x : 18446744073709551615 \\+ 18446744073709551615;\n",
    "shift_huge": "println$ 1 << 1000;\n",
    "natural_pow": "var n = 3 :>> natural;\nfor i in 0 ..< 64 do n = n * n; done\nprintln$ n > n;\n",
    "decode_huge": "var x = 99999999999 :>> 3;\n",
    "zero_size_index": "var a : int ^ 0;\nprintln$ len a;\n",
    "void_var": "var v : void;\nprintln 1;\n",
    "void_projection": "var z = 0;\nval v = z :>> 2 \\* 0;\nprintln$ v.0 :>> int;\n",
}
for name, src in huge.items():
    w(f"huge_{name}.flx", src)

# Unbalanced comments, strings and brackets.
unbalanced = {
    "comment": "println 1; /* never closed\nprintln 2;\n",
    "nested_comment": "/* /* */ println 1;\n",
    "string": 'println "never closed;\n',
    "string_escape": 'println "\\',
    "char": "println 'a;\n",
    "paren": "println$ (1 + 2;\n",
    "close_paren": "println$ 1 + 2);\n",
    "bracket": "var a = [1, 2;\n",
    "brace": "fun f () { return 1;\n",
    "begin": "begin println 1;\n",
    "match": "println$ match 1 with | 1 => 2;\n",
    "if": "println$ if true then 1 else 2;\n",
    "do": "for i in 0 ..< 3 do println i;\n",
    "done": "println 1; done\n",
    "endmatch": "endmatch\n",
    "mismatched": "println$ (1, [2, 3);\n",
    "only_open": "(",
    "only_close": ")",
    "only_semicolons": ";;;;;;;;\n",
    "empty": "",
    "whitespace": "   \n\t\n  ",
    "keyword_soup": "fun val var if then else endif match with endmatch do done begin end\n",
    "operators": "+ - * / % ^ \\* \\+ \\^ :>> => -> <- |> $ . .. ..<\n",
}
for name, src in unbalanced.items():
    w(f"unbalanced_{name}.flx", src)

# Deep nesting at and past the limit (256).
for n, tag in ((255, "under"), (257, "over")):
    w(f"deep_parens_{tag}.flx", f"println$ {'(' * n}1{')' * n};\n")
    w(f"deep_brackets_{tag}.flx", f"println$ {'[' * n}1{']' * n};\n")
    w(f"deep_tuples_{tag}.flx", f"println$ {'(1, ' * n}1{')' * n};\n")
    w(f"deep_types_{tag}.flx", f"var x : {'(' * n}int{')' * n};\nprintln 1;\n")
    w(f"deep_begin_{tag}.flx", f"{'begin ' * n}println 1; {'end ' * n}\n")
    w(f"deep_match_{tag}.flx", "println$ " + "match 1 with | _ => " * n + "1" + " endmatch" * n + ";\n")
    w(f"deep_if_{tag}.flx", "if true do " * n + "println 1; " + "done " * n + "\n")
    w(f"deep_patterns_{tag}.flx", f"println$ match 1 with | {'(' * n}x{')' * n} => x endmatch;\n")
w("deep_unary_minus.flx", "println$ " + "-" * 2000 + "1;\n")
w("deep_not.flx", "println$ " + "not " * 2000 + "true;\n")
w("long_chain_plus.flx", "println$ 1" + " + 1" * 20000 + ";\n")
w("long_chain_and.flx", "println$ 1" + " and 1" * 5000 + ";\n")
w("long_chain_compact_comma.flx", "println$ `0:2" + " \\, `0:2" * 3000 + ";\n")
w("long_tuple.flx", "println$ (" + ", ".join(["1"] * 20000) + ");\n")
w("long_line_error.flx", "println$ " + "1 + " * 5000 + "undefined_name;\n")
w("many_statements.flx", "println 1;\n" * 20000)
w("many_errors.flx", "".join(f"println u{i};\n" for i in range(3000)))
w("many_syntax_errors.flx", "var = ;\n" * 3000)

# Reproducer classes (small versions of ../shared/robustness/crashes/).
repro = {
    "void_projection_small": "fun g () : int => v.0 :>> int;\nprintln$ g ();\nval v = 0 :>> 2 \\* 0;\n",
    "void_projection_big": "fun g () : natural => v.0 :>> natural;\nprintln$ g ();\nval v = 0 :>> (2 \\^ 64) \\* 0;\n",
    "string_doubling": 'var s = "ab";\nfor i in 0 ..< 40 do s = s + s; done\nprintln$ len s;\n',
    "string_repeat": 'println$ len ("ab" * 2000000000);\n',
    "natural_squaring": "var n = 2 :>> natural;\nfor i in 0 ..< 40 do n = n * n; done\nprintln$ n > (0 :>> natural);\n",
    "call_before_init": "fun g (y:int) : int => h y;\nprintln$ g 3;\nval h : int -> int = fun (x:int) => x + 1;\n",
    "match_before_init": "variant V = | A of int | B;\nfun g () : int => match v with | A k => k | B => 7 endmatch;\nprintln$ g ();\nval v : V = A 3;\n",
    "read_before_init_top": "fun g () : int => x + 1;\nprintln$ g ();\nval x = 5;\n",
    "big_carray_projection": "var x : 2 \\^ 65537;\nprintln$ x.0;\n",
    "typedef_doubling": "typedef T0 = 2;\n" + "".join(f"typedef T{i} = T{i-1} * T{i-1} * int;\n" for i in range(1, 41)) + "println 1;\n",
    "typedef_doubling_mismatch": "typedef T0 = 2;\n" + "".join(f"typedef T{i} = T{i-1} * T{i-1} * int;\n" for i in range(1, 41)) + "fun f (x:string) => x;\nvar t : T40;\nprintln$ f t;\n",
    "iso_doubling": "typedef T0 = int;\n" + "".join(f"typedef T{i} = T{i-1} ^ 2 * string;\n" for i in range(1, 41)) + "var x : T40;\nval y = x :>> int ^ 2;\n",
    "typedef_linear": "typedef T0 = int;\n" + "".join(f"typedef T{i} = T{i-1} * string;\n" for i in range(1, 3001)) + "println 1;\n",
    "cpow_chain": "var x : " + "2 \\^ " * 3000 + "2;\n",
    "unclosed_parens": "println$ " + "(" * 5000 + "\n",
    "unclosed_match": "println$ " + "match 1 with | _ => " * 2000 + "\n",
    "unclosed_for": "for i in 0 ..< 2 do " * 2000 + "\n",
    "recursion_deep": "fun f (n:int) : int => if n == 0 then 0 else 1 + f (n - 1) endif;\nprintln$ f 10000000;\n",
}
for name, src in repro.items():
    w(f"repro_{name}.flx", src)

# Found by the coverage-guided fuzzers (fuzz/): statement recovery in nested unclosed blocks,
# and statements starting with `&` parsed twice, were exponential.
w("fuzz_unclosed_for_blocks.flx", open(os.path.join(ROOT, "fuzz_unclosed_for_blocks.flx")).read()
  if os.path.exists(os.path.join(ROOT, "fuzz_unclosed_for_blocks.flx"))
  else ("for v in flags do print$ v.str + intln$ 1 << 2 + 1; println$ 255ut << " + "{{{X" + "{" * 16 + "p (unboxed i, false, false);\n") * 3)
w("unclosed_for_braces_repeated.flx", ("for v in f do println$ " + "{" * 16 + "x;\n") * 12)
w("store_in_nested_closures.flx", "&{" * 40 + "x;" + "};" * 40 + "\n")

# Token soups: random tokens of the language.
tokens = ["(", ")", "[", "]", "{", "}", ",", ";", ":", "::", ".", "..", "..<", "$", "|>", "|", "#",
          "&", "<-", "->", "=>", ":>>", "=", "==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/",
          "%", "^", "+=", "++", "\\*", "\\+", "\\^", "\\,", "`", "`+", "1", "0", "2147483648", "1.5",
          "'c'", '"s"', "x", "y", "int", "double", "bool", "string", "natural", "fun", "val", "var",
          "if", "then", "else", "endif", "match", "with", "endmatch", "for", "in", "do", "done",
          "begin", "end", "typedef", "struct", "variant", "return", "println", "len", "\\sum",
          "true", "false", "not", "and", "or", "proc", "while", "break", "case", "of", "\n"]
for i in range(40):
    n = random.randrange(1, 200)
    w(f"soup_{i}.flx", " ".join(random.choice(tokens) for _ in range(n)))

print(count, "cases")
