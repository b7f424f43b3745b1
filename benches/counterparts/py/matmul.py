# Program "matmul" (benches/programs/matmul.flx): naive N x N matrix multiply, pure CPython
# (lists of lists, the loops inside a function).
def main():
    n = 160
    a = [[float((i * 7 + j * 3) % 11 - 5) for j in range(n)] for i in range(n)]
    b = [[float((i * 5 + j * 2) % 13 - 6) for j in range(n)] for i in range(n)]
    c = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(n):
            s = 0.0
            for k in range(n):
                s += a[i][k] * b[k][j]
            c[i][j] = s
    t = 0.0
    for i in range(n):
        for j in range(n):
            t += c[i][j] * (i + 1) + j
    print("%.1f" % t)


main()
