# Program "histogram" (benches/programs/histogram.flx): 16 bins over an LCG stream.
def main():
    m = 8000000
    h = [0] * 16
    x = 42
    for i in range(m):
        x = (x * 1103515245 + 12345) % 2147483648
        h[(x // 65536) % 16] += 1
    cs = 0
    for b in range(16):
        cs += (b + 1) * h[b]
    print(cs, max(h))


main()
