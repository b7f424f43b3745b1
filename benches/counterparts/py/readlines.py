# Program "readlines" (benches/programs/readlines.flx): 200 000 lines "k,x" written to a text
# file, read back line by line, split at the comma and parsed; count and sums.
path = "/tmp/tessera-bench-readlines-py.txt"
with open(path, "w") as out:
    for k in range(200000):
        out.write(str(k) + "," + "%g" % ((k % 1000) / 4.0) + "\n")
n, ks, xs = 0, 0, 0.0
with open(path) as f:
    for line in f:
        c = line.find(",")
        if c >= 0:
            ks += int(line[:c])
            xs += float(line[c + 1:])
        n += 1
print("%d %d %.0f" % (n, ks, xs))
