-- Program "print_doubles" (benches/programs/print_doubles.flx): 300 000 doubles formatted with
-- %g (six significant digits), the lengths of the texts summed.
local n = 0
for i = 0, 299999 do n = n + #string.format("%g", i * 1.37 + 0.25) end
print(n)
