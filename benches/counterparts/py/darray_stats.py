# Program "darray_stats" (benches/programs/darray_stats.flx): a growing list of 2 000 000 LCG
# floats, then five passes: mean, variance, rises between neighbours.
d = []
x = 12345
for i in range(2000000):
    x = (x * 1103515245 + 12345) % 2147483648
    d.append(x / 2147483648.0)
mean = var_ = 0.0
rises = 0
for p in range(5):
    s = 0.0
    for i in range(len(d)):
        s += d[i]
    mean = s / len(d)
    q = 0.0
    for i in range(len(d)):
        q += (d[i] - mean) * (d[i] - mean)
    var_ = q / len(d)
    r = 0
    for i in range(1, len(d)):
        if d[i] > d[i - 1]:
            r += 1
    rises = r
print("%.6f %.6f %d" % (mean, var_, rises))
