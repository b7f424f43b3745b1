# Program "rowsum" (benches/programs/rowsum.flx): row sums and row maxima of abs of an N x N
# matrix (a list of row lists), R rounds.
def maxabs(r):
    acc = 0.0
    for v in r:
        acc = max(acc, abs(v))
    return acc


def rowsums(rows):
    cs = 0.0
    k = 1.0
    for row in rows:
        cs += k * sum(row) + maxabs(row)
        k += 1.0
    return cs


def main():
    n = 500
    m = [[0.0] * n for _ in range(n)]
    cs = 0.0
    for r in range(20):
        for i in range(n):
            row = m[i]
            for j in range(n):
                row[j] = float((i * 31 + j * 17 + r) % 101 - 50)
        cs += rowsums(m)
    print("%.1f" % cs)


main()
