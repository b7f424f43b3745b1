# Program "stencil" (benches/programs/stencil.flx) in numpy: the sweep on slices.
import numpy as np

n = 200
u = np.zeros((n, n))
u[0, :] = 100.0
u[1:n - 1, 0] = np.arange(1, n - 1) % 7
v = u.copy()


def sweep(src, dst):
    dst[1:-1, 1:-1] = 0.25 * (src[:-2, 1:-1] + src[2:, 1:-1] + src[1:-1, :-2] + src[1:-1, 2:])


for s in range(20):
    sweep(u, v)
    sweep(v, u)
print(np.trunc(u * 1000000.0).astype(np.int64).sum())
