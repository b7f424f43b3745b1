-- Row "call" (Lua 5.4): 5e6 calls of a function of two integers, s = mix(s, i).
-- Expected output: 915859
local function mix(h, v) return (h * 31 + v) % 1000003 end
local s = 0
for i = 0, 4999999 do s = mix(s, i) end
print(string.format("%d", s))
