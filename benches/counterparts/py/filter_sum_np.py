# filter then sum with numpy: the multiples of 3 below 2,000,000.
import numpy as np

xs = np.arange(2000000, dtype=np.int64)
ys = xs[xs % 3 == 0]
print(f"({len(ys)}, {int(ys.sum())})")
