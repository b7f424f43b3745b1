# Program "tree_insert" (benches/programs/tree_insert.flx): a persistent binary search tree of
# tuples (l, k, r), 200 000 pseudo-random keys inserted with path copying, then counted.
import sys

sys.setrecursionlimit(10000)


def insert(t, k):
    if t is None:
        return (None, k, None)
    l, v, r = t
    if k < v:
        return (insert(l, k), v, r)
    if k > v:
        return (l, v, insert(r, k))
    return t


def size(t):
    if t is None:
        return 0
    return size(t[0]) + 1 + size(t[2])


t = None
x = 12345
for _ in range(200000):
    x = (x * 1103515245 + 12345) % 2147483647
    t = insert(t, x % 1000000)
print(size(t))
