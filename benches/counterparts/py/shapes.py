# Program "shapes" (benches/programs/shapes.flx): a list of 300 000 shapes (tuples tagged by
# kind), built from an LCG stream, then ten passes summing their areas.
import math


def area(s):
    kind = s[0]
    if kind == "circle":
        return 3.14159 * s[1] * s[1]
    if kind == "rect":
        return s[1] * s[2]
    a, b, c = s[1], s[2], s[3]
    p = (a + b + c) / 2.0
    return math.sqrt(p * (p - a) * (p - b) * (p - c))


shapes = []
x = 1
for i in range(300000):
    x = (x * 1103 + 12345) % 65536
    d = (x % 100) / 10.0 + 1.0
    m = i % 3
    if m == 0:
        shapes.append(("circle", d))
    elif m == 1:
        shapes.append(("rect", d, d + 1.0))
    else:
        shapes.append(("tri", d, d + 0.5, d + 1.0))
total = 0.0
for k in range(10):
    total = 0.0
    for s in shapes:
        total += area(s)
print(int(total * 1000.0))
