# Program "callbacks" (benches/programs/callbacks.flx): three integrands kept as functions in
# a list, each handed to a midpoint-rule integrator over 0 .. 1 with 1 000 000 steps.
def integrate(f, a, b, n):
    h = (b - a) / n
    s = 0.0
    for i in range(n):
        s += f(a + (i + 0.5) * h)
    return s * h

integrands = [
    lambda x: x * x,
    lambda x: 1.0 / (1.0 + x),
    lambda x: x * (1.0 - x),
]
total = 0.0
for k in range(3):
    total += integrate(integrands[k], 0.0, 1.0, 1000000)
print("%.9f" % total)
