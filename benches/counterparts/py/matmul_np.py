# Program "matmul" (benches/programs/matmul.flx) in numpy: a @ b.
import numpy as np

n = 160
i = np.arange(n).reshape(n, 1)
j = np.arange(n).reshape(1, n)
a = ((i * 7 + j * 3) % 11 - 5).astype(np.float64)
b = ((i * 5 + j * 2) % 13 - 6).astype(np.float64)
c = a @ b
t = (c * (i + 1) + j).sum()
print("%.1f" % t)
