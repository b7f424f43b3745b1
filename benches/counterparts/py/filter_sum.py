# filter then sum: the multiples of 3 below 2,000,000 (benches/programs/filter_sum.flx).
xs = list(range(2000000))
ys = [x for x in xs if x % 3 == 0]
print(f"({len(ys)}, {sum(ys)})")
