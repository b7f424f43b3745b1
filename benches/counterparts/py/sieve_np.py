# Program "sieve" (benches/programs/sieve.flx) in numpy: strided slice stores.
import numpy as np


def sieve(n):
    composite = np.zeros(n, dtype=bool)
    composite[:2] = True
    for i in range(2, int(n ** 0.5) + 1):
        if not composite[i]:
            composite[i * i::i] = True
    primes = np.flatnonzero(~composite)
    return len(primes), int(primes.sum())


n = 2000000
for r in range(5):
    c, s = sieve(n)
print(c, s)
