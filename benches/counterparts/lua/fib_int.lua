-- Row "fib" (Lua 5.4): naive recursive fib(30) on integers (2 692 537 calls), as the K4 baseline.
-- Expected output: 832040
local function fib(n)
  if n < 2 then return n end
  return fib(n - 1) + fib(n - 2)
end
print(string.format("%d", fib(30)))
