-- Program "tuple_rec" (benches/programs/tuple_rec.flx): a recursive function returning a pair
-- (two results in Lua), the Fibonacci pair mod 1 000 007.
local function fp(n)
  if n == 0 then return 0, 1 end
  local a, b = fp(n - 1)
  return b, (a + b) % 1000007
end
local s = 0
for r = 1, 1000 do
  for n = 0, 99 do
    local f = fp(n)
    s = s + f
  end
end
local a, b = fp(1000)
print(s .. " " .. a .. " " .. b)
