# Program "variants" (benches/programs/variants.flx): an expression tree of tuples tagged by
# kind, built recursively, evaluated modulo 1 000 003 twenty times and its nodes counted.
P = 1000003

def build(d, k):
    if d == 0:
        return ("num", k % 10 + 1)
    if d % 2 == 0:
        return ("add", build(d - 1, 2 * k), build(d - 1, 2 * k + 1))
    return ("mul", build(d - 1, 2 * k), build(d - 1, 2 * k + 1))

def evaluate(e):
    tag = e[0]
    if tag == "num":
        return e[1]
    if tag == "add":
        return (evaluate(e[1]) + evaluate(e[2])) % P
    return (evaluate(e[1]) * evaluate(e[2])) % P

def count(e):
    if e[0] == "num":
        return 1
    return 1 + count(e[1]) + count(e[2])

t = build(16, 0)
s = 0
for r in range(20):
    s += evaluate(t)
print(f"{s} {count(t)}")
