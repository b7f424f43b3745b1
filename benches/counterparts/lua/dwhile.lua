-- Row "dwhile" (Lua 5.4): a while loop on doubles, 5e6 iterations, s = s + x * 0.5.
-- Expected output: 6249998750000.0
local x, s = 0.0, 0.0
while x < 5000000.0 do
  s = s + x * 0.5
  x = x + 1.0
end
print(string.format("%.1f", s))
