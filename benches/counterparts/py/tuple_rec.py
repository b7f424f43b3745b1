# Program "tuple_rec" (benches/programs/tuple_rec.flx): a recursive function returning a tuple,
# the Fibonacci pair mod 1 000 007.
import sys

sys.setrecursionlimit(5000)


def fp(n):
    if n == 0:
        return 0, 1
    a, b = fp(n - 1)
    return b, (a + b) % 1000007


def main():
    s = 0
    for r in range(1000):
        for n in range(100):
            s += fp(n)[0]
    a, b = fp(1000)
    print(s, a, b)


main()
