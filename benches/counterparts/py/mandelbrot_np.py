# Program "mandelbrot" (benches/programs/mandelbrot.flx) in numpy: the whole grid at once,
# the points still inside updated under a mask.
import numpy as np

w, h, maxit = 400, 300, 100
y0 = (-1.25 + 2.5 * np.arange(h) / h).reshape(h, 1) * np.ones((1, w))
x0 = (-2.0 + 2.5 * np.arange(w) / w).reshape(1, w) * np.ones((h, 1))
x = np.zeros((h, w))
y = np.zeros((h, w))
alive = np.ones((h, w), dtype=bool)
its = np.zeros((h, w), dtype=np.int64)
for it in range(maxit):
    alive &= x * x + y * y <= 4.0
    xa, ya = x[alive], y[alive]
    xt = xa * xa - ya * ya + x0[alive]
    y[alive] = 2.0 * xa * ya + y0[alive]
    x[alive] = xt
    its += alive
print(int(alive.sum()), int(its.sum()))
