# Program "rowsum" (benches/programs/rowsum.flx) in numpy: m.reshape(n, n), sum and max of abs
# along the rows.
import numpy as np

n = 500
i = np.arange(n).reshape(n, 1)
j = np.arange(n).reshape(1, n)
k = np.arange(1, n + 1, dtype=np.float64)
cs = 0.0
for r in range(20):
    m = (((i * 31 + j * 17 + r) % 101 - 50).astype(np.float64)).reshape(n * n)
    rows = m.reshape(n, n)
    cs += (k * rows.sum(axis=1) + np.abs(rows).max(axis=1)).sum()
print("%.1f" % cs)
