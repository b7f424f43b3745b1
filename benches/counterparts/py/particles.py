# Program "particles" (benches/programs/particles.flx): a list of objects, each stepped by a
# function given the object.
import math


class Particle:
    __slots__ = ("x", "y", "vx", "vy")

    def __init__(self, x, y, vx, vy):
        self.x, self.y, self.vx, self.vy = x, y, vx, vy


seed = 7


def next_unit():
    global seed
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed / 2147483648.0


ps = []
for i in range(2000):
    x = next_unit()
    y = next_unit()
    vx = next_unit() - 0.5
    vy = next_unit() - 0.5
    ps.append(Particle(x, y, vx, vy))


def step(p, dt):
    p.vy = p.vy - 9.81 * dt
    p.x = p.x + p.vx * dt
    p.y = p.y + p.vy * dt
    if p.x < 0.0:
        p.x = -p.x
        p.vx = -0.9 * p.vx
    if p.x > 1.0:
        p.x = 2.0 - p.x
        p.vx = -0.9 * p.vx
    if p.y < 0.0:
        p.y = -p.y
        p.vy = -0.9 * p.vy


for t in range(1000):
    for i in range(2000):
        step(ps[i], 0.001)

sp, sv = 0.0, 0.0
for p in ps:
    sp += p.x + p.y
    sv += math.sqrt(p.vx * p.vx + p.vy * p.vy)
print("%.6f %.6f" % (sp, sv))
