# Program "springs" (benches/programs/springs.flx): masses on springs updated in place.
N = 1000


class Mass:
    __slots__ = ("x", "v", "m")

    def __init__(self, x, v, m):
        self.x, self.v, self.m = x, v, m


def step(ms, dt):
    for i in range(N):
        p = ms[i]
        f = -p.x * (1.0 + 0.001 * i)
        p.v = p.v + f / p.m * dt
        p.x = p.x + p.v * dt


def energy(ms, st):
    st[0] = 0.0
    st[1] = 0.0
    for i in range(N):
        p = ms[i]
        e = 0.5 * p.m * p.v * p.v + 0.5 * (1.0 + 0.001 * i) * p.x * p.x
        st[0] = st[0] + e
        if e > st[1]:
            st[1] = e


ms = [Mass((i % 10) * 0.1, 0.0, 1.0 + (i % 3)) for i in range(N)]
st = [0.0, 0.0]
energy(ms, st)
out = "%.9f" % st[0]
for _ in range(3000):
    step(ms, 0.001)
energy(ms, st)
print(out + " %.9f %.9f" % (st[0], st[1]))
