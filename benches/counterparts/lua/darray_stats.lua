-- Program "darray_stats" (benches/programs/darray_stats.flx): a growing array of 2 000 000
-- LCG doubles, then five passes: mean, variance, rises between neighbours.
local d = {}
local x = 12345
for i = 0, 1999999 do
  x = (x * 1103515245 + 12345) % 2147483648
  d[#d + 1] = x / 2147483648.0
end
local mean, var_, rises = 0.0, 0.0, 0
for pass = 0, 4 do
  local s = 0.0
  for i = 1, #d do s = s + d[i] end
  mean = s / #d
  local q = 0.0
  for i = 1, #d do q = q + (d[i] - mean) * (d[i] - mean) end
  var_ = q / #d
  local r = 0
  for i = 2, #d do if d[i] > d[i - 1] then r = r + 1 end end
  rises = r
end
print(string.format("%.6f %.6f %d", mean, var_, rises))
