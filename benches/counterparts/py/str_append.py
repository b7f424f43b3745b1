# Rows "str" / "str2x" (CPython): COUNT appends s += str(i) + "," to a string, then its length.
# Usage: str_append.py [COUNT]  (default 100000)
# Expected output: 588890 (COUNT = 100000), 1288890 (COUNT = 200000)
#
# The loop is inside a function, as Python code usually is: CPython appends in place (linear
# time) only to a local variable. The same loop at module level is quadratic in CPython 3.11
# (8 s for 100 000 appends on this machine).
import sys


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
    s = ""
    for i in range(n):
        s += str(i) + ","
    print(len(s))


main()
