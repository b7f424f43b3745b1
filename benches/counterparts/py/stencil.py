# Program "stencil" (benches/programs/stencil.flx): 5-point Jacobi sweeps on two flat lists.
import math


def sweep(src, dst, n):
    for i in range(1, n - 1):
        for j in range(1, n - 1):
            k = i * n + j
            dst[k] = 0.25 * (src[k - n] + src[k + n] + src[k - 1] + src[k + 1])


def main():
    n = 200
    u = [0.0] * (n * n)
    v = [0.0] * (n * n)
    for j in range(n):
        u[j] = 100.0
        v[j] = 100.0
    for i in range(1, n - 1):
        u[i * n] = float(i % 7)
        v[i * n] = float(i % 7)
    for s in range(20):
        sweep(u, v, n)
        sweep(v, u, n)
    print(sum(int(x * 1000000.0) for x in u))


main()
