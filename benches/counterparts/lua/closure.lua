-- Row "closure" (Lua 5.4): map of a closure capturing k over 5e6 integers (a[i] = i), then iter
-- of a closure that adds b[i] % 7 to an upvalue; map and iter are plain Lua functions.
-- Expected output: 14999999
local N = 5000000
local function map(f, xs)
  local ys = {}
  for i = 1, #xs do ys[i] = f(xs[i]) end
  return ys
end
local function iter(p, xs)
  for i = 1, #xs do p(xs[i]) end
end
local a = {}
for i = 1, N do a[i] = i - 1 end
local k = 3
local b = map(function(x) return k * x + 1 end, a)
local s = 0
iter(function(v) s = s + v % 7 end, b)
print(string.format("%d", s))
