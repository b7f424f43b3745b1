# Program "histogram" (benches/programs/histogram.flx) in numpy: the LCG stream generated in
# blocks (the first block by the recurrence, each next block from the previous one by the
# recurrence's K-step jump x -> (A_K x + C_K) mod 2^31), then np.bincount.
import numpy as np

m = 8000000
a, c, mod = 1103515245, 12345, 2147483648
k = 4096
first = np.empty(k, dtype=np.int64)
x = 42
for i in range(k):
    x = (x * a + c) % mod
    first[i] = x
# the K-step jump: x_{i+K} = (ak * x_i + ck) mod 2^31
ak, ck = 1, 0
for i in range(k):
    ak, ck = (ak * a) % mod, (ck * a + c) % mod
xs = np.empty(m, dtype=np.int64)
xs[:k] = first
for start in range(k, m, k):
    end = min(start + k, m)
    xs[start:end] = (ak * xs[start - k:end - k] + ck) % mod
h = np.bincount((xs // 65536) % 16, minlength=16)
print(int((h * np.arange(1, 17)).sum()), int(h.max()))
