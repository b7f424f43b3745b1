# Program "toplevel_structs" (benches/programs/toplevel_structs.flx): an oscillator over a
# two-field class at the top level.
class Vec2:
    __slots__ = ("x", "y")
    def __init__(self, x, y):
        self.x = x
        self.y = y
def add(a, b): return Vec2(a.x + b.x, a.y + b.y)
def scale(a, k): return Vec2(a.x * k, a.y * k)
def norm2(a): return a.x * a.x + a.y * a.y
p, v, energy = Vec2(1.0, 0.0), Vec2(0.0, 1.0), 0.0
for i in range(3000000):
    acc = scale(p, -0.001)
    v = add(v, acc)
    p = add(p, scale(v, 0.001))
    energy += norm2(p) + norm2(v)
print("%.6f %.6f %.3f" % (p.x, p.y, energy))
