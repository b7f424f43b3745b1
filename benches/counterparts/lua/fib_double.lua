-- Row "fib" (Lua 5.4): naive recursive fib(30) on floats (2 692 537 calls).
-- Expected output: 832040
local function fib(n)
  if n < 2.0 then return n end
  return fib(n - 1.0) + fib(n - 2.0)
end
print(string.format("%.0f", fib(30.0)))
