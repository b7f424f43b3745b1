# Program "nbody" (benches/programs/nbody.flx): the benchmarks game n-body on a list of objects.
import math

PI = 3.141592653589793
SOLAR_MASS = 4.0 * PI * PI
DAYS = 365.24


class Body:
    __slots__ = ("x", "y", "z", "vx", "vy", "vz", "mass")

    def __init__(self, x, y, z, vx, vy, vz, mass):
        self.x, self.y, self.z = x, y, z
        self.vx, self.vy, self.vz = vx, vy, vz
        self.mass = mass


def offset_momentum(bs):
    px = py = pz = 0.0
    for b in bs:
        px += b.vx * b.mass
        py += b.vy * b.mass
        pz += b.vz * b.mass
    bs[0].vx = -px / SOLAR_MASS
    bs[0].vy = -py / SOLAR_MASS
    bs[0].vz = -pz / SOLAR_MASS


def energy(bs):
    e = 0.0
    for i in range(len(bs)):
        b = bs[i]
        e += 0.5 * b.mass * (b.vx * b.vx + b.vy * b.vy + b.vz * b.vz)
        for j in range(i + 1, len(bs)):
            c = bs[j]
            dx = b.x - c.x
            dy = b.y - c.y
            dz = b.z - c.z
            e -= b.mass * c.mass / math.sqrt(dx * dx + dy * dy + dz * dz)
    return e


def advance(bs, dt):
    n = len(bs)
    for i in range(n):
        b = bs[i]
        for j in range(i + 1, n):
            c = bs[j]
            dx = b.x - c.x
            dy = b.y - c.y
            dz = b.z - c.z
            d2 = dx * dx + dy * dy + dz * dz
            mag = dt / (d2 * math.sqrt(d2))
            b.vx = b.vx - dx * c.mass * mag
            b.vy = b.vy - dy * c.mass * mag
            b.vz = b.vz - dz * c.mass * mag
            c.vx = c.vx + dx * b.mass * mag
            c.vy = c.vy + dy * b.mass * mag
            c.vz = c.vz + dz * b.mass * mag
    for b in bs:
        b.x = b.x + dt * b.vx
        b.y = b.y + dt * b.vy
        b.z = b.z + dt * b.vz


def main():
    bodies = [
        Body(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, SOLAR_MASS),
        Body(4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01,
             1.66007664274403694e-03 * DAYS, 7.69901118419740425e-03 * DAYS,
             -6.90460016972063023e-05 * DAYS, 9.54791938424326609e-04 * SOLAR_MASS),
        Body(8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01,
             -2.76742510726862411e-03 * DAYS, 4.99852801234917238e-03 * DAYS,
             2.30417297573763929e-05 * DAYS, 2.85885980666130812e-04 * SOLAR_MASS),
        Body(1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01,
             2.96460137564761618e-03 * DAYS, 2.37847173959480950e-03 * DAYS,
             -2.96589568540237556e-05 * DAYS, 4.36624404335156298e-05 * SOLAR_MASS),
        Body(1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01,
             2.68067772490389322e-03 * DAYS, 1.62824170038242295e-03 * DAYS,
             -9.51592254519715870e-05 * DAYS, 5.15138902046611451e-05 * SOLAR_MASS),
    ]
    offset_momentum(bodies)
    e0 = energy(bodies)
    for s in range(40000):
        advance(bodies, 0.01)
    print("%.9f %.9f" % (e0, energy(bodies)))


main()
