# Program "cons_list" (benches/programs/cons_list.flx): a list of 200 000 ints built as linked
# pairs (head, tail), then summed by a loop over the cells, ten times over.
def build(n):
    l = None
    for i in range(1, n + 1):
        l = (i, l)
    return l


def total(l, acc):
    while l is not None:
        acc += l[0]
        l = l[1]
    return acc


s = 0
for _ in range(10):
    s += total(build(200000), 0)
print(s)
