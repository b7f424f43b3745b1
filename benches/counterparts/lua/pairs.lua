-- Row "pairs" (Lua 5.4): 2e6 pairs {i, i * 0.5} as a table of tables, filled then summed by field.
-- Expected output: 1999999000000 999999500000.0
local N = 2000000
local a = {}
for i = 0, N - 1 do a[i + 1] = {i, i * 0.5} end
local s, d = 0, 0.0
for i = 1, N do
  local p = a[i]
  s = s + p[1]
  d = d + p[2]
end
print(string.format("%d %.1f", s, d))
