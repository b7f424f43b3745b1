# Program "print_doubles" (benches/programs/print_doubles.flx): 300 000 doubles formatted with
# %g (six significant digits), the lengths of the texts summed.
n = 0
for i in range(300000):
    n += len("%g" % (i * 1.37 + 0.25))
print(n)
